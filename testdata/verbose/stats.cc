#include "stats.h"

#include <cstddef>
#include <string>
#include <vector>

std::string count_label(std::string unit, long n) {
  if (unit.empty()) {
    return std::to_string(n);
  } else {
    return std::to_string(n) + " " + unit;
  }
}

long sum(std::vector<int> values) {
  long total = 0;
  for (size_t i = 0; i < values.size(); i++) {
    total += values[i];
  }
  return total;
}

double mean(const std::vector<int> &values) {
  if (values.empty()) { return 0.0; }
  double m = static_cast<double>(sum(values)) / static_cast<double>(values.size());
  return m;
}

// Returns a pointer to the first element equal to x, or nullptr.
const int *find(const std::vector<int> &values, int x) {
  for (const int &value : values) {
    if (value == x) {
      return &value;
    }
  }
  return nullptr;
}

// End of the statistics helpers.
