package example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void sumAddsAllValues() {
        assertEquals(10, Stats.sum(new int[] {1, 2, 3, 4}));
    }

    @Test
    void meanDividesByCount() {
        assertEquals(2.5, Stats.mean(new int[] {1, 2, 3, 4}), 1e-9);
    }

    @Test
    void toCentsMultipliesByHundred() {
        assertArrayEquals(new int[] {200, 400}, Stats.toCents(new int[] {2, 4}));
    }

    @Test
    void maxFindsLargestNegative() {
        assertEquals(-1, Stats.max(new int[] {-3, -1, -2}));
    }
}
