// Time Limit Exceeded: counts to 2^62 before printing anything.
#include <iostream>

int main() {
  long long total = 0;
  long long x;
  while (std::cin >> x) {
    total += x;
  }
  for (volatile long long i = 0; i < (1LL << 62); i = i + 1) {
  }
  std::cout << total << '\n';
  return 0;
}
