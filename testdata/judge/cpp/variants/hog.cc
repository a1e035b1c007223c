// Memory Limit Exceeded: fills a 2 GiB vector (std::bad_alloc under a
// smaller memory limit).
#include <cstddef>
#include <iostream>
#include <vector>

int main() {
  long long total = 0;
  long long x;
  while (std::cin >> x) {
    total += x;
  }
  std::vector<char> buf(std::size_t{2} << 30, 1);
  total += buf[buf.size() / 2] - 1;
  std::cout << total << '\n';
  return 0;
}
