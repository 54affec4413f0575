#pragma once
// The confirmation of a bisection (private to bisect/): a pair the posterior holds is judged on
// runs made after it was chosen (fresh runs), at the planned looks of a calibrated
// group-sequential boundary, each locked pair with its share of alpha / 2; and a search that
// could not name a pair re-judges its endpoints on fresh runs the same way.

#include <map>
#include <utility>

#include "culprit/bisect/bisector.hpp"
#include "posterior_search.hpp"
#include "run_ledger.hpp"

namespace culprit::bisect {

class Confirmation {
 public:
  Confirmation(RunLedger& ledger, PosteriorSearch& search, const Options& options, Result& result);

  enum class State { kRunning, kFound, kRefuted };
  // The adjacent pair (lo, hi) holds `mass` of the posterior: locked the first time (its runs
  // from now on are fresh for it), then judged at each planned look its fresh runs reach. Found:
  // the result holds the culprit pair. Refuted: the lock is dropped, so a later confirmation of
  // the same pair starts on new fresh runs.
  State look(int lo, int hi, double mass);

  // The search ended without a pair: the endpoints judged again on runs made after block
  // `search_began` (at least the confirmation's first look of each, made now when missing).
  // True, with the result's status and message set, when no regression is reproduced; false
  // when the step is real but not located (the caller says so).
  bool endpoints_not_regressed(long search_began);

 private:
  // The pair under confirmation: chosen by the posterior from the runs made up to block
  // `after`; its runs made later are fresh (they did not choose it).
  struct Lock {
    int lo = 0;
    int hi = 0;
    long after = 0;
    int next_look = 0;  // fresh runs per side at the next planned look (0: the first)
    int looks = 0;
    bool passed = false;  // a planned look found the pair regressed
    int judged_n = 0;     // fresh runs per side at the last look
    stats::Comparison last;
    stats::SamplingPlan plan;  // its looks and their level (lock_plan)
  };

  static stats::SamplingPlan make_plan(const Options& options);
  stats::SamplingPlan lock_plan(int j) const;
  State look_at_lock(Lock& lock, double mass);
  // Takes the planned looks the fresh runs reach while the posterior holds the pair.
  bool take_looks(Lock& lock, const std::vector<double>& lo, const std::vector<double>& hi,
                  double mass);
  // 1 - the posterior mass a locked pair must hold for a look and for "found".
  double hold_error() const;
  void record_verify(const Lock& lock, int n, double mass, bool confirmed);

  RunLedger& ledger_;
  PosteriorSearch& search_;
  const Options& options_;
  Result& result_;
  stats::SamplingPlan plan_;
  int confirmations_ = 0;                      // pairs locked so far
  std::map<std::pair<int, int>, Lock> locks_;  // per pair: its confirmation so far
};

}  // namespace culprit::bisect
