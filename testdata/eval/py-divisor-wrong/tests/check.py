"""Checker of the divisor problem, in testlib's convention.

Run as: check.py INPUT OUTPUT ANSWER (the case's input, the program's
output, the expected answer). It exits 0 when the output is a valid
answer, 1 when it is not (wrong answer), and 3 when the expected answer
is itself wrong (a checker failure: the problem's data is broken). Like
testlib, it writes its verdict's message on stderr.
"""
import sys

OK, WRONG_ANSWER, FAIL = 0, 1, 3


def quit_with(code, message):
    print(message, file=sys.stderr)
    sys.exit(code)


def read_number(path, whose):
    with open(path, encoding="utf-8", errors="replace") as f:
        words = f.read().split()
    if len(words) != 1:
        return None, f"{whose} has {len(words)} words, expected one integer"
    try:
        return int(words[0]), ""
    except ValueError:
        return None, f"{whose} {words[0][:40]!r} is not an integer"


def is_divisor(d, n):
    return 1 < d < n and n % d == 0


def main():
    if len(sys.argv) != 4:
        quit_with(FAIL, "usage: check.py INPUT OUTPUT ANSWER")
    n, problem = read_number(sys.argv[1], "the input")
    if n is None:
        quit_with(FAIL, problem)
    answer, problem = read_number(sys.argv[3], "the answer")
    if answer is None or not (answer == -1 or is_divisor(answer, n)):
        quit_with(FAIL, problem or f"the expected answer {answer} is not valid for {n}")
    output, problem = read_number(sys.argv[2], "the output")
    if output is None:
        quit_with(WRONG_ANSWER, "wrong answer " + problem)
    if output == -1:
        if answer != -1:
            quit_with(WRONG_ANSWER, f"wrong answer {n} has a divisor ({answer}), found -1")
        quit_with(OK, f"ok {n} has no divisor")
    if not is_divisor(output, n):
        quit_with(WRONG_ANSWER, f"wrong answer {output} is not a divisor of {n} between 2 and {n - 1}")
    if answer == -1:
        quit_with(FAIL, f"the expected answer says {n} has no divisor, but {output} is one")
    quit_with(OK, f"ok {output} divides {n}")


if __name__ == "__main__":
    main()
