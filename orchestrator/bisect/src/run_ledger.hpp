#pragma once
// The runs of one bisection (private to bisect/): every run median measured so far per version,
// stamped with the order it arrived in and the interleaved block it belongs to, and which
// versions turned out untestable. The posterior, the confirmation and the noise guard read it;
// only the ledger asks the measurer for runs.

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "culprit/bisect/measurer.hpp"
#include "culprit/stats/change_point.hpp"

namespace culprit::bisect {

class RunLedger {
 public:
  RunLedger(const std::vector<std::string>& versions, Measurer& measurer, std::uint64_t seed);

  int count() const { return static_cast<int>(versions_.size()); }
  const std::string& name(int index) const { return versions_[at(index)]; }
  int have(int index) const { return static_cast<int>(runs_[at(index)].size()); }
  int total_runs() const;
  bool untestable(int index) const { return untestable_[at(index)]; }
  const std::vector<std::vector<stats::TimedRun>>& runs() const { return runs_; }

  // Ensures `n` runs of `index`; new runs are stamped in the order they arrive and with the
  // interleaved block they belong to. Untestable propagates.
  void fetch(int index, int n, long block);
  // Runs from..from+n-1 of `index` (fewer when it has fewer).
  std::vector<double> values(int index, int from, int n) const;
  // The runs of `v` made in blocks after `after`: fresh for a choice made up to that block.
  std::vector<double> fresh_of(int v, long after) const;

  // A new block's number (blocks are numbered in the order they are made).
  long next_block() { return ++block_clock_; }
  long block_clock() const { return block_clock_; }
  // One balanced block: a run of each version, in a seeded order.
  void block_of(std::vector<int> versions);
  void shuffle(std::vector<int>& versions) { std::shuffle(versions.begin(), versions.end(), rng_); }
  // `index` cannot be measured: its runs are dropped and it is never chosen again.
  void mark_untestable(int index);

 private:
  static std::size_t at(int index) { return static_cast<std::size_t>(index); }

  std::vector<std::string> versions_;
  Measurer& measurer_;
  std::vector<std::vector<stats::TimedRun>> runs_;
  std::vector<bool> untestable_;
  std::vector<std::vector<long>> blocks_;  // per version, the interleaved block of each run
  std::mt19937_64 rng_;
  long clock_ = 0;
  long block_clock_ = 0;
};

}  // namespace culprit::bisect
