#pragma once
// The noise guard of a bisection (private to bisect/): from an early look at the endpoints,
// whether the run-to-run noise lets the margin be reached within max_repetitions; if not, the
// bisection stops early with advice (NoiseStop) instead of spending the cap on every version.

#include "culprit/bisect/bisector.hpp"
#include "culprit/stats/change_point.hpp"
#include "run_ledger.hpp"

namespace culprit::bisect {

// Thrown by NoiseGuard::check when the step cannot be shown within the cap; result.noise says
// why and what to do.
struct NoiseStop {};

class NoiseGuard {
 public:
  NoiseGuard(const RunLedger& ledger, const Options& options, NoiseCheck& noise)
      : ledger_(ledger), options_(options), noise_(noise) {}

  // Fills the noise figures from the endpoints' paired runs `s` at an early look; throws
  // NoiseStop when even max_repetitions runs per version could not show the step (or, for a
  // step below it, the margin). `no_step`: the posterior's no-step probability now.
  void check(const PairSamples& s, const stats::Comparison& first_look, double no_step);
  // The noise figures from every run so far (the posterior's scale).
  void update(const stats::ChangePointPosterior& post);

 private:
  const RunLedger& ledger_;
  const Options& options_;
  NoiseCheck& noise_;
};

}  // namespace culprit::bisect
