#pragma once
// `culprit run` with [stats] sampling = "adaptive": after the planned runs, every candidate
// configuration whose comparison with the baseline is inconclusive gets a block of
// `repetitions` more runs, interleaved with as many of the baseline's
// (launch::ensure_ok_runs), until it is decided or has max_repetitions runs. Each look is judged
// by stats::judge_experiment, the one judgement `compare`, `explain`, `report` and `validate`
// make of the stored experiment (alpha over the planned looks for an adaptive experiment), so a
// candidate decided here is decided there, on the same runs at the same level.

#include <string>
#include <vector>

#include "culprit/launch/execute.hpp"
#include "culprit/manifest/plan.hpp"
#include "culprit/stats/judge.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::bisect {

struct SweepDecision {
  std::string config;  // the candidate's label
  // Why sampling stopped for it: "verdict reached", "at max_repetitions",
  // "runs keep failing: ...", "no ok run".
  std::string reason;
};

struct SweepDecisions {
  bool sampled = false;                  // false: fixed sampling, or nothing could be judged
  std::string not_sampled;               // why sampling was not done ("" when it was)
  stats::Judgement judgement;            // the last look: what `compare` now says
  std::vector<SweepDecision> decisions;  // one per candidate judged, in plan order
  launch::ExecuteResult added;           // the runs added (added.runs), their failures
};

// After `planned` (execute_plan's result), adds runs to the plan's inconclusive candidates as
// said above; does nothing for a plan whose sampling is "fixed". `plan` gains the added runs.
// Not done, with the reason in `not_sampled`, for a shard (it holds part of the sweep), a sweep
// that stopped early, or a comparison that cannot be judged (environments that differ in more
// than the varied factor). Throws launch::Interrupted after SIGINT/SIGTERM (what was added
// stays stored).
SweepDecisions decide_sweep(storage::Db& store, manifest::Plan& plan,
                            const launch::ExecuteOptions& options,
                            const launch::ExecuteResult& planned,
                            launch::ProgressSink* progress = nullptr);

}  // namespace culprit::bisect
