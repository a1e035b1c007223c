// Wrong Answer: sums in an int, which overflows on large inputs.
#include <iostream>

int main() {
  int total = 0;
  long long x;
  while (std::cin >> x) {
    total += static_cast<int>(x);
  }
  std::cout << total << '\n';
  return 0;
}
