//===- Intervals.cpp - Busy time of overlapping intervals -----------------===//
#include "Intervals.h"

#include <algorithm>

double hccl::tools::unionLength(std::vector<std::pair<double, double>> iv) {
  std::sort(iv.begin(), iv.end());
  double total = 0, curS = -1, curE = -1;
  for (auto [s, e] : iv) {
    if (s > curE) {
      if (curE > curS)
        total += curE - curS;
      curS = s;
      curE = e;
    } else {
      curE = std::max(curE, e);
    }
  }
  if (curE > curS)
    total += curE - curS;
  return total;
}
