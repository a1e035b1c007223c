"""Read whitespace-separated integers, print their average.

The accepted solution of the float judge example: it prints Python's
shortest repr of the average ("2.0", "1.3333333333333333"), while the
expected outputs have six decimals ("2.000000", "1.333333"); the problem
file tests/judge.yaml compares numbers within 1e-6.
"""
import sys

# The judge compares numbers within 1e-6, so the shortest repr of the average is enough.


def main():
    """Print the average of the integers on standard input."""
    numbers = [int(word) for word in sys.stdin.read().split()]
    print(sum(numbers) / len(numbers))


if __name__ == "__main__":
    main()
