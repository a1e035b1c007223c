"""Wrong Answer: sums only the first line of the input."""
import sys


def main():
    print(sum(int(word) for word in sys.stdin.readline().split()))


if __name__ == "__main__":
    main()
