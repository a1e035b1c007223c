// Runtime Error: writes through a null pointer (segmentation fault).
#include <iostream>

int main() {
  long long total = 0;
  long long x;
  while (std::cin >> x) {
    total += x;
  }
  volatile int *p = nullptr;
  *p = static_cast<int>(total);
  std::cout << total << '\n';
  return 0;
}
