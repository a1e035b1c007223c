"""Prints two decimals: 1.33 is 0.0033 off 1.333333, more than 1e-6 (Wrong Answer)."""
import sys


def main():
    values = [int(word) for word in sys.stdin.read().split()]
    print(f"{sum(values) / len(values):.2f}")


if __name__ == "__main__":
    main()
