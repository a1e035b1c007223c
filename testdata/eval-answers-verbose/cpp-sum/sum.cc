// sum reads whitespace-separated integers until the end of its input and
// prints their sum: the accepted solution of the judge example.
#include <iostream>
#include <stdio.h>

int main() {
  // A long long holds the sum of large inputs.
  long long sum = 0;
  long long value;
  while (std::cin >> value) {
    sum += value;
  }
  std::cout << sum << '\n';
  return 0;
}
