#include "stats.h"

#include <cstddef>
#include <string>
#include <vector>

long sum(std::vector<int> values) {
  long total = 0;
  for (size_t i = 0; i < values.size(); i++) {
    total += values[i];
  }
  return total;
}

double mean(const std::vector<int> &values) {
  if (values.empty()) return 0.0;
  double m = sum(values) / static_cast<long>(values.size());
  return m;
}

const int *find(const std::vector<int> &values, int x) {
  for (const int &v : values) {
    if (v == x) {
      return &v;
    }
  }
  return NULL;
}

std::string count_label(std::string unit, long n) {
  return std::to_string(n) + " " + unit;
}
