#include "culprit/common/median.hpp"

#include <algorithm>
#include <limits>

namespace culprit {

double median_inplace(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = values.size() / 2;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(values.begin(), at, values.end());
  if (values.size() % 2 == 1) return *at;
  return 0.5 * (*std::max_element(values.begin(), at) + *at);
}

}  // namespace culprit
