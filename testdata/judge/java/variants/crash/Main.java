import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.StringTokenizer;

/** Runtime Error: divides by zero (ArithmeticException) after reading the input. */
public class Main {
  static long mean(List<Long> numbers) {
    long total = 0;
    for (long n : numbers) {
      total += n;
    }
    return total / (numbers.size() - numbers.size());
  }

  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    List<Long> numbers = new ArrayList<>();
    String line;
    while ((line = in.readLine()) != null) {
      StringTokenizer words = new StringTokenizer(line);
      while (words.hasMoreTokens()) {
        numbers.add(Long.parseLong(words.nextToken()));
      }
    }
    System.out.println(mean(numbers));
  }
}
