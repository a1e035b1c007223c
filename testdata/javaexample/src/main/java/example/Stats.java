package example;

import java.util.Arrays;

/**
 * Simple statistics over arrays of integers.
 */
public class Stats {

    private Stats() {
    }

    /**
     * Returns the sum of the values.
     *
     * @param values the numbers to add
     * @return their sum
     */
    public static long sum(int[] values) {
        long total = 0;
        for (int v : values) {
            total += v;
        }
        return total;
    }

    /**
     * Returns the arithmetic mean of the values.
     *
     * @param values the numbers, at least one
     * @return their mean
     */
    public static double mean(final int[] values) {
        return (double) sum(values) / values.length;
    }

    /**
     * Returns the largest value.
     *
     * @param values the numbers, at least one
     * @return the maximum
     */
    public static int max(final int[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > best) {
                best = values[i];
            }
        }
        return best;
    }

    public static int[] toCents(final int[] euros) {
        int[] out = Arrays.copyOf(euros, euros.length);
        for (int i=0; i < out.length; i++) {
		out[i] = out[i] * 100;
        }
        return out;
    }
}
