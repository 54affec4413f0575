#pragma once
// The endpoints of a bisection (private to bisect/): the first good and the last bad version
// judged pair by pair through the adaptive loop, in balanced blocks of one run each; the
// posterior over both may start the search before their verdict does (the go rule).

#include "culprit/bisect/bisector.hpp"
#include "noise_guard.hpp"
#include "posterior_search.hpp"
#include "run_ledger.hpp"

namespace culprit::bisect {

class EndpointJudge {
 public:
  EndpointJudge(RunLedger& ledger, PosteriorSearch& search, NoiseGuard& noise,
                const Options& options, Result& result)
      : ledger_(ledger), search_(search), noise_(noise), options_(options), result_(result) {}

  // False when the bisection stops at the endpoints (the result's status and message set):
  // not reproduced, inconclusive, or stopped by the noise guard. Throws RunError when an
  // endpoint cannot be measured.
  bool confirm(int good, int bad);

 private:
  PairSamples pair_at(int baseline, int candidate, int n);
  bool paired_step(int baseline, int candidate, double level) const;
  bool posterior_goes(int baseline, int candidate) const;
  bool go_at_cap(int good, int bad, const PairJudgement& judged);
  void stop_on_noise(int good, int bad, const stats::SamplingPlan& plan);

  RunLedger& ledger_;
  PosteriorSearch& search_;
  NoiseGuard& noise_;
  const Options& options_;
  Result& result_;
  bool stepped_ = false;  // the endpoints' posterior saw a step before their verdict did
};

}  // namespace culprit::bisect
