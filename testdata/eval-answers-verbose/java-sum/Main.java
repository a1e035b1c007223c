import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

/** Reads integers until the end of input and prints their sum. */
public final class Main {
  private Main() {
  }

  /**
   * Prints the sum of the integers on standard input.
   *
   * @param args unused
   * @throws IOException when standard input cannot be read
   */
  public static void main(final String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    long sum = 0;
    String line;
    // One line at a time.
    while ((line = in.readLine()) != null) {
      StringTokenizer words = new StringTokenizer(line);
      // Every token is a number; a token that is not one ends the program with an error.
      while (words.hasMoreTokens()) {
        sum += Long.parseLong(words.nextToken());
      }
    }
    System.out.println(sum);
  }
}
