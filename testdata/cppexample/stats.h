#ifndef CPPEXAMPLE_STATS_H
#define CPPEXAMPLE_STATS_H

#include <string>
#include <vector>

long sum(std::vector<int> values);
double mean(const std::vector<int> &values);
const int *find(const std::vector<int> &values, int x);
std::string count_label(std::string unit, long n);

#endif
