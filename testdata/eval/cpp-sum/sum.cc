// sum reads whitespace-separated integers until the end of its input and
// prints their sum: the accepted solution of the judge example.
#include <iostream>

int main() {
  long long total = 0;
  long long x;
  while (std::cin >> x) {
    total += x;
  }
  std::cout << total << '\n';
  return 0;
}
