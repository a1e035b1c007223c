"""Time Limit Exceeded: loops forever before printing."""
import sys


def main():
    total = sum(int(word) for word in sys.stdin.read().split())
    while True:
        total += 0
    print(total)


if __name__ == "__main__":
    main()
