"""Small statistics helpers: fixloop's Python example."""
import math


def mean(values):
    """Return the arithmetic mean of values, or None when there are none."""
    if values is None or len(values) == 0:
        return None
    return sum(values) / len(values)


# The middle value, or the mean of the two middle values.
def median(values):
    """Return the median of values."""
    sorted_values = sorted(values)
    half = len(sorted_values) // 2
    if len(sorted_values) % 2 == 1:
        return sorted_values[half]
    return (sorted_values[half - 1] + sorted_values[half]) / 2


def stdev(values):
    """Return the population standard deviation of values: the square root of the variance."""
    return math.sqrt(variance(values))


def variance(values):
    """Return the population variance of values."""
    avg = mean(values)
    return sum((value - avg) ** 2 for value in values) / len(values)


def describe(values):
    """Return a one-line summary of values."""
    return (f"n={len(values)} mean={mean(values):.2f} "
            f"median={median(values):.2f} stdev={stdev(values):.2f}")
