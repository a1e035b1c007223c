"""Small statistics helpers: fixloop's Python example."""
import math
import os


def mean(values):
    """Return the arithmetic mean of values, or None when there are none."""
    if values == None or len(values) == 0:
        return None
    return sum(values) / len(values)


def median(values):
    """Return the median of values."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return (ordered[middle] + ordered[middle + 1]) / 2


def variance(values):
    """Return the population variance of values."""
    avg = mean(values)
    count = len(values)
    return sum((value - avg) ** 2 for value in values) / len(values)


def stdev(values):
    """Return the population standard deviation of values."""
    return math.sqrt(variance(values))


def describe(values):
    return "n=%d mean=%.2f median=%.2f stdev=%.2f" % (len(values), mean(values), median(values), stdev(values))
