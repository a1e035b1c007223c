// Compile Error: uses a variable that is not declared.
#include <iostream>

int main() {
  long long total = 0;
  long long x;
  while (std::cin >> x) {
    total += x;
  }
  std::cout << totl << '\n';
  return 0;
}
