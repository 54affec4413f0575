#include "diagnostics.hpp"

#include <algorithm>
#include <numeric>

#include "culprit/errors.hpp"

namespace culprit::manifest::detail {
namespace {

// Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps) on
// three rolling rows: the one two before, the one before and the current one.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before2(b.size() + 1), before(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) before[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({before[j] + 1, row[j - 1] + 1, before[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before2[j - 2] + 1);
      }
    }
    std::swap(before2, before);
    std::swap(before, row);
  }
  return before[b.size()];
}

}  // namespace

std::string format_problem(const SourceLocation& where, std::string_view key,
                           std::string_view expected, std::string_view got, std::string_view todo) {
  std::string out =
      where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": ";
  if (!key.empty()) out += "key '" + std::string(key) + "': ";
  out += "expected " + std::string(expected) + ", got " + std::string(got);
  if (!todo.empty()) out += "; " + std::string(todo);
  return out;
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    // The distance is at least the difference in length: a long word (a whole line pasted as a
    // value) is compared with no candidate, instead of in time proportional to its length.
    const std::size_t shorter = std::min(word.size(), candidate.size());
    if (std::max(word.size(), candidate.size()) - shorter >= best_distance) continue;
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string suggest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string out;
  if (const std::string best = closest_match(word, candidates); !best.empty()) {
    out = "did you mean '" + best + "'? ";
  }
  if (candidates.empty()) return out + "none are defined";
  constexpr std::size_t kShown = 24;
  std::vector<std::string> shown(candidates.begin(),
                                 candidates.begin() + std::min(kShown, candidates.size()));
  out += "valid: " + join(shown, ", ");
  if (candidates.size() > kShown) out += ", ...";
  return out;
}

void Diagnostics::add(const SourceLocation& where, std::string_view key, std::string_view expected,
                      std::string_view got, std::string_view todo) {
  ++reports_;
  std::string problem = format_problem(where, key, expected, got, todo);
  // The same mistake can surface in several configurations; say it once.
  if (std::find(problems_.begin(), problems_.end(), problem) == problems_.end()) {
    problems_.push_back(std::move(problem));
  }
}

void Diagnostics::raise_if_any() const {
  if (problems_.empty()) return;
  throw UsageError(join(problems_, "\n"));
}

}  // namespace culprit::manifest::detail
