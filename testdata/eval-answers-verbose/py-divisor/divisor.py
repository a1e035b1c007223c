"""Read n, print a divisor d of n with 1 < d < n, or -1 when there is none.

The accepted solution of the checker judge example. Several answers are
valid (12: 2, 3, 4 or 6), and this one prints the smallest, while the
expected outputs hold the largest: only the problem's checker
(tests/check.py, named by tests/judge.yaml) can judge it.
"""
import sys

# Trial division up to the square root: a larger divisor has a smaller partner found first.


def main():
    """Print the smallest proper divisor of the number on standard input."""
    number = int(sys.stdin.read().split()[0])
    print(smallest_divisor(number))


def smallest_divisor(number):
    """Return the smallest divisor of number in 2..number - 1, or -1."""
    divisor = 2
    while divisor * divisor <= number:
        if number % divisor == 0:
            return divisor
        divisor += 1
    return -1


if __name__ == "__main__":
    main()
