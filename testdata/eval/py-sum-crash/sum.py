"""Runtime Error: divides by zero after reading the input."""
import sys


def mean(numbers):
    return sum(numbers) // (len(numbers) - len(numbers))


def main():
    numbers = [int(word) for word in sys.stdin.read().split()]
    print(mean(numbers))


if __name__ == "__main__":
    main()
