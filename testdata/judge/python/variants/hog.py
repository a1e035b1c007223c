"""Memory Limit Exceeded: allocates a 2 GiB buffer (MemoryError)."""
import sys


def main():
    total = sum(int(word) for word in sys.stdin.read().split())
    buf = bytearray(2 << 30)
    print(total + buf[0])


if __name__ == "__main__":
    main()
