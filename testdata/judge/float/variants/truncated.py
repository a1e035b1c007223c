"""Averages with integer division: 1 2 gives 1, not 1.5 (Wrong Answer)."""
import sys


def main():
    values = [int(word) for word in sys.stdin.read().split()]
    print(sum(values) // len(values))


if __name__ == "__main__":
    main()
