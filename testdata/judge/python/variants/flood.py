"""Wrong Answer (output limit): prints the sum, then 50 MiB of debug output."""
import sys

LINE = "debug: " + "x" * 92 + "\n"  # 100 bytes
CHUNK = LINE * 1024  # 100 KiB


def main():
    total = sum(int(word) for word in sys.stdin.read().split())
    print(total)
    for _ in range(512):  # 50 MiB
        sys.stdout.write(CHUNK)


if __name__ == "__main__":
    main()
