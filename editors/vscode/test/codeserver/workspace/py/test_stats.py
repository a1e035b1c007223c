"""Tests of stats: test_median_even fails until median is repaired."""
import stats


def test_median_odd():
    """The median of an odd count is the middle value."""
    assert stats.median([3, 1, 2]) == 2


def test_median_even():
    """The median of an even count averages the two middle values."""
    assert stats.median([4, 1, 3, 2]) == 2.5
