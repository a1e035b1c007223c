"""The VS Code test's Python file: a lint alert and a failing test."""
import os


def median(values):
    """Return the median of values."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return (ordered[middle] + ordered[middle + 1]) / 2
