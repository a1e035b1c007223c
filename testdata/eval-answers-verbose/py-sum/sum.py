"""Read whitespace-separated integers until the end of input, print their sum.

The accepted solution of the judge example.
"""
import sys

# Python's integers do not overflow, so the sum of large inputs is exact.


def main():
    """Print the sum of the integers on standard input."""
    print(sum(int(token) for token in sys.stdin.read().split()))


# Run as a script: the judge feeds the input on standard input and reads the output.
if __name__ == "__main__":
    main()
