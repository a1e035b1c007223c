"""A fork bomb, bounded: every process forks 10 times in a row (up to 1024
processes, twice the sandbox's default cap of 512), then all sleep. Under
the cap a fork fails with BlockingIOError (Runtime Error); the rest sleep
past the time limit (Time Limit Exceeded)."""
import os
import time


def main():
    for _ in range(10):
        os.fork()
    time.sleep(30)


if __name__ == "__main__":
    main()
