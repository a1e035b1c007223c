"""Read whitespace-separated integers until the end of input, print their sum.

The accepted solution of the judge example.
"""
import sys


def main():
    print(sum(int(word) for word in sys.stdin.read().split()))


if __name__ == "__main__":
    main()
