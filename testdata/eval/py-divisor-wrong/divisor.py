"""Prints n itself, which divides n but is not less than n (Wrong Answer)."""
import sys


def main():
    print(int(sys.stdin.read().split()[0]))


if __name__ == "__main__":
    main()
