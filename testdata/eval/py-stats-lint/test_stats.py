"""Tests of stats: three pass, test_median_even fails until median is fixed."""
import stats


def test_mean():
    """mean averages the values and has no answer for none."""
    assert stats.mean([1, 2, 3, 4]) == 2.5
    assert stats.mean([]) is None


def test_median_odd():
    """The median of an odd count is the middle value."""
    assert stats.median([3, 1, 2]) == 2


def test_median_even():
    """The median of an even count averages the two middle values."""
    assert stats.median([4, 1, 3, 2]) == 2.5


def test_stdev():
    """stdev is the population standard deviation."""
    assert stats.stdev([2, 4, 4, 4, 5, 5, 7, 9]) == 2.0
