// Wrong Answer (output limit): prints the sum, then 50 MiB of debugging
// output.
#include <cstdio>
#include <iostream>
#include <string>

int main() {
  long long total = 0;
  long long x;
  while (std::cin >> x) {
    total += x;
  }
  std::cout << total << '\n' << std::flush;
  std::string line = "debug: " + std::string(92, 'x') + "\n";  // 100 bytes
  std::string chunk;
  for (int i = 0; i < 1024; ++i) {
    chunk += line;  // 100 KiB
  }
  for (int i = 0; i < 512; ++i) {  // 50 MiB
    std::fwrite(chunk.data(), 1, chunk.size(), stdout);
  }
  return 0;
}
