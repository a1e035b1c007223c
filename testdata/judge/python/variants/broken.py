"""Compile Error: a call that is never closed (SyntaxError)."""
import sys


def main():
    print(sum(int(word) for word in sys.stdin.read().split())


if __name__ == "__main__":
    main()
