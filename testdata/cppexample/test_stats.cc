// A tiny test harness: each check prints "PASS name" or "FAIL name", and the
// program exits 1 when any check failed.
#include <cstdio>
#include <vector>

#include "stats.h"

namespace {

int failures = 0;

void check(bool ok, const char *name) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok) {
    failures++;
  }
}

}  // namespace

int main() {
  const std::vector<int> values = {1, 2, 3, 4};
  check(sum(values) == 10, "sum");
  check(mean(values) == 2.5, "mean");
  check(mean({}) == 0.0, "mean_empty");
  check(find(values, 3) == &values[2], "find");
  check(find(values, 7) == nullptr, "find_missing");
  check(count_label("values", 4) == "4 values", "count_label");
  return failures == 0 ? 0 : 1;
}
