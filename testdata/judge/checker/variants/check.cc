// The divisor problem's checker in C++, in testlib's convention (the same
// as tests/check.py): check INPUT OUTPUT ANSWER exits 0 for a valid answer,
// 1 for a wrong one, 3 when the expected answer itself is wrong. The
// message goes to stderr. Self-contained: no testlib.h.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace {

const int kOk = 0;
const int kWrongAnswer = 1;
const int kFail = 3;

[[noreturn]] void quit(int code, const std::string& message) {
  std::cerr << message << '\n';
  std::exit(code);
}

// readNumber reads the one integer of a file; ok is false when the file
// holds anything else.
long long readNumber(const char* path, bool* ok) {
  std::ifstream in(path);
  long long value = 0;
  std::string rest;
  *ok = static_cast<bool>(in >> value) && !(in >> rest);
  return value;
}

bool isDivisor(long long d, long long n) { return 1 < d && d < n && n % d == 0; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) quit(kFail, "usage: check INPUT OUTPUT ANSWER");
  bool ok = false;
  const long long n = readNumber(argv[1], &ok);
  if (!ok) quit(kFail, "the input is not one integer");
  const long long answer = readNumber(argv[3], &ok);
  if (!ok || !(answer == -1 || isDivisor(answer, n))) quit(kFail, "the expected answer is not valid");
  const long long output = readNumber(argv[2], &ok);
  if (!ok) quit(kWrongAnswer, "wrong answer the output is not one integer");
  if (output == -1) {
    if (answer != -1) quit(kWrongAnswer, "wrong answer " + std::to_string(n) + " has a divisor (" + std::to_string(answer) + "), found -1");
    quit(kOk, "ok no divisor");
  }
  if (!isDivisor(output, n)) {
    quit(kWrongAnswer, "wrong answer " + std::to_string(output) + " is not a divisor of " + std::to_string(n) +
                           " between 2 and " + std::to_string(n - 1));
  }
  if (answer == -1) quit(kFail, "the expected answer says there is no divisor, but " + std::to_string(output) + " is one");
  quit(kOk, "ok " + std::to_string(output) + " divides " + std::to_string(n));
}
