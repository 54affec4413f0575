#pragma once
// Step time as the methodology defines it: the interval between global step boundaries, a
// boundary being when the last rank finishes the step on the aligned (rank-0) clock.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

struct StepTime {
  int step = 0;
  double time_ms = 0;      // boundary(step) - boundary(step - 1)
  double boundary_ns = 0;  // aligned time at which the last rank finished this step
  int last_rank = -1;      // the rank that finished last
  bool warmup = false;
};

// One entry per step that every rank recorded, in step order. The first step's start is the
// latest aligned begin of that step over ranks (all ranks must have started it).
std::vector<StepTime> step_times(const storage::RunData& run);

// The same on a refined clock: `correction_ns[r]` is added to rank r's clock-model time (empty:
// none). Attribution uses this so that its step times and its decomposition share one clock.
std::vector<StepTime> step_times(const storage::RunData& run,
                                 const std::vector<double>& correction_ns);

// Why `run` has no complete steady-state step (step_times gives none past the warm-up), in
// words from its step events: none at all, a rank that numbered several steps alike (every step
// 0), every step within the warm-up, or the first steady step missing on some rank.
std::string no_steady_step_reason(const storage::RunData& run);

// Step times folded from step events one at a time, so the events need not be in memory together:
// step_times() folds a loaded run's, and the store's copy of a run folds each as it writes it
// (launch::record_run), with the same arithmetic.
class StepTimesBuilder {
 public:
  // `clocks` in any order (ClockModel::rank says whose); a rank without one is taken as on rank
  // 0's clock already. `correction_ns[r]` is added to rank r's aligned time (empty: none).
  explicit StepTimesBuilder(const std::vector<storage::ClockModel>& clocks,
                            std::vector<double> correction_ns = {});
  // One step event (raw local clock of `rank`). Events of one step on equal ends: the first
  // added is the last rank (a loaded run adds them in rank order).
  void add(int rank, int step, std::int64_t begin_ns, std::int64_t end_ns);
  // The step times of a run of `ranks` ranks with `warmup_steps` warm-up steps. Throws
  // std::invalid_argument when the step events name more than `ranks` ranks.
  std::vector<StepTime> finish(int ranks, int warmup_steps) const;

 private:
  struct Extent {
    double latest_begin;
    double latest_end;
    int last_rank = -1;
    int ranks_seen = 0;
  };
  double aligned(int rank, std::int64_t t) const;

  std::vector<storage::ClockModel> clocks_;  // by rank
  std::vector<double> correction_ns_;
  std::map<int, Extent> by_step_;
  int max_rank_ = -1;
  std::vector<bool> rank_seen_;  // by rank id
  int distinct_ranks_ = 0;
};

// The run's figure: median of the steady-state (non-warm-up) step times; NaN when none.
double median_step_ms(const std::vector<StepTime>& steps);

}  // namespace culprit::analysis
