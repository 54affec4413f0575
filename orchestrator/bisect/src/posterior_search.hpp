#pragma once
// The posterior search of a bisection (private to bisect/): the change-point posterior over
// every run so far, the version one run of which is worth most, the pair that holds most of the
// step's mass, the credible range, and the record of what each chosen version turned out to be.

#include <optional>
#include <utility>

#include "culprit/bisect/bisector.hpp"
#include "culprit/stats/change_point.hpp"
#include "run_ledger.hpp"

namespace culprit::bisect {

class PosteriorSearch {
 public:
  PosteriorSearch(RunLedger& ledger, const Options& options, Result& result)
      : ledger_(ledger), options_(options), result_(result) {}

  stats::ChangePointPosterior posterior() const;

  struct Pair {
    int lo = 0;
    int hi = 0;
    double mass = 0;
  };
  // The adjacent testable pair (untestable versions between them allowed) holding most mass.
  Pair best_pair(const stats::ChangePointPosterior& post) const;
  // The smallest range of versions holding 1 - alpha of the step's mass.
  std::pair<int, int> credible_range(const stats::ChangePointPosterior& post) const;
  // The testable version below its cap whose "bad" probability is nearest one half: one run
  // of it is worth most (the information of a run is largest where the mass is split evenly).
  std::optional<int> pick_version(const stats::ChangePointPosterior& post) const;
  // The measured testable versions either side of the posterior median.
  std::pair<int, int> bracket(const stats::ChangePointPosterior& post) const;

  // One block: a run of `v` and a fresh run of one end of the bracket (alternating).
  void measure_round(int v, const stats::ChangePointPosterior& post);
  // What a version the posterior chose turned out to be, with its probability of being bad.
  void record_midpoint(int v, const stats::ChangePointPosterior& post);
  // The top candidates and the no-step probability, into the result.
  void record_candidates(const stats::ChangePointPosterior& post);

 private:
  RunLedger& ledger_;
  const Options& options_;
  Result& result_;
  int round_ = 0;
};

}  // namespace culprit::bisect
