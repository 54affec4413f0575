#include "culprit/importers/ranks.hpp"

#include <charconv>
#include <cstdint>
#include <limits>
#include <regex>
#include <string>

#include "culprit/errors.hpp"

namespace culprit::importers {

int rank_from_file_name(const std::string& path) {
  static const std::regex pattern(R"(rank[-_]?(\d+))", std::regex::icase);
  const std::size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::smatch m;
  if (!std::regex_search(base, m, pattern)) return -1;
  const std::optional<int> rank = leading_rank(m[1].str());
  if (!rank) {
    throw UsageError(path + ": the rank in the file name (" + m[0].str() +
                     ") is beyond the largest rank, " +
                     std::to_string(std::numeric_limits<int>::max() - 1) +
                     ": rename the file rank<R>.json with its real rank");
  }
  return *rank;
}

std::optional<int> leading_rank(std::string_view text) {
  std::int64_t n = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end == text.data() || n < 0 || n >= std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  return static_cast<int>(n);
}

}  // namespace culprit::importers
