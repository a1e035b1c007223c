import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

/** Compile Error: a statement without its semicolon. */
public class Main {
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    long total = 0;
    String line;
    while ((line = in.readLine()) != null) {
      StringTokenizer words = new StringTokenizer(line);
      while (words.hasMoreTokens()) {
        total += Long.parseLong(words.nextToken());
      }
    }
    System.out.println(total)
  }
}
