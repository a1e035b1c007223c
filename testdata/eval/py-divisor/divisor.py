"""Read n, print a divisor d of n with 1 < d < n, or -1 when there is none.

The accepted solution of the checker judge example. Several answers are
valid (12: 2, 3, 4 or 6), and this one prints the smallest, while the
expected outputs hold the largest: only the problem's checker
(tests/check.py, named by tests/judge.yaml) can judge it.
"""
import sys


def main():
    n = int(sys.stdin.read().split()[0])
    d = 2
    while d * d <= n:
        if n % d == 0:
            print(d)
            return
        d += 1
    print(-1)


if __name__ == "__main__":
    main()
