#include "run_ledger.hpp"

#include <algorithm>

#include "culprit/errors.hpp"

namespace culprit::bisect {

RunLedger::RunLedger(const std::vector<std::string>& versions, Measurer& measurer,
                     std::uint64_t seed)
    : versions_(versions),
      measurer_(measurer),
      runs_(versions.size()),
      untestable_(versions.size(), false),
      blocks_(versions.size()),
      rng_(seed) {}

int RunLedger::total_runs() const {
  int total = 0;
  for (const auto& r : runs_) total += static_cast<int>(r.size());
  return total;
}

void RunLedger::fetch(int index, int n, long block) {
  if (have(index) >= n) return;
  std::vector<double> got = measurer_.samples(index, n);
  if (static_cast<int>(got.size()) < n) {
    throw RunError("bisect: the measurer returned " + std::to_string(got.size()) +
                   " runs of version " + name(index) + " where " + std::to_string(n) +
                   " were asked for");
  }
  auto& runs = runs_[at(index)];
  auto& blocks = blocks_[at(index)];
  // Exactly n: a store may hand back more stored runs than asked for; taking them in the
  // same order as the first time makes a resumed bisection walk the same path.
  for (std::size_t i = runs.size(); i < static_cast<std::size_t>(n); ++i) {
    runs.push_back({got[i], clock_++});
    blocks.push_back(block);
  }
}

std::vector<double> RunLedger::values(int index, int from, int n) const {
  std::vector<double> out;
  const auto& runs = runs_[at(index)];
  for (int i = from; i < from + n && i < static_cast<int>(runs.size()); ++i) {
    out.push_back(runs[static_cast<std::size_t>(i)].value);
  }
  return out;
}

std::vector<double> RunLedger::fresh_of(int v, long after) const {
  std::vector<double> out;
  const auto& runs = runs_[at(v)];
  const auto& blocks = blocks_[at(v)];
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (blocks[i] > after) out.push_back(runs[i].value);
  }
  return out;
}

void RunLedger::block_of(std::vector<int> versions) {
  const long block = next_block();
  shuffle(versions);
  for (int x : versions) fetch(x, have(x) + 1, block);
}

void RunLedger::mark_untestable(int index) {
  untestable_[at(index)] = true;
  runs_[at(index)].clear();
  blocks_[at(index)].clear();
}

}  // namespace culprit::bisect
