#include "culprit/bisect/decide_sweep.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "culprit/errors.hpp"

namespace culprit::bisect {
namespace {

int config_index(const manifest::Plan& plan, const std::string& label) {
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    if (plan.configs[i].label == label) return static_cast<int>(i);
  }
  return -1;
}

void append_runs(launch::ExecuteResult& into, launch::ExecuteResult&& from) {
  into.experiment_id = from.experiment_id;
  into.planned += from.planned;
  into.not_ok += from.not_ok;
  for (auto& run : from.runs) into.runs.push_back(std::move(run));
}

// One look: the judgement compare would print now, or nullopt (with the reason) when the
// stored experiment cannot be judged.
std::optional<stats::Judgement> judge(storage::Db& store, const manifest::Plan& plan,
                                      std::string& why_not) {
  try {
    const auto experiment = stats::load_stored_experiment(store, plan.settings.name);
    return stats::judge_experiment(store, experiment, {});
  } catch (const UsageError& e) {
    why_not = e.what();
    return std::nullopt;
  }
}

struct Sampler {
  storage::Db& store;
  manifest::Plan& plan;
  const launch::ExecuteOptions& options;
  launch::ProgressSink* progress;
  SweepDecisions result;
  std::map<std::string, std::string> stopped;  // candidate -> why no more runs are added

  int cap() const { return std::max(plan.settings.max_repetitions, plan.settings.repetitions); }

  // Adds a block to `c` (and the baseline, to as many runs); false when the block brought the
  // candidate no ok run.
  bool add_block(const stats::StoredComparison& c) {
    const int candidate = config_index(plan, c.candidate_label);
    const int have = static_cast<int>(c.candidate_ms.size());
    const int target = std::min(have + std::max(plan.settings.repetitions, 1), cap());
    append_runs(result.added,
                launch::ensure_ok_runs(store, plan, {0, candidate}, target, options, progress));
    std::string ignored;
    const auto after = judge(store, plan, ignored);
    if (!after) return false;
    for (const auto& now : after->comparisons.comparisons) {
      if (now.candidate_label == c.candidate_label) {
        return static_cast<int>(now.candidate_ms.size()) > have;
      }
    }
    return false;
  }

  // One pass over the inconclusive candidates; false when nothing was added.
  bool grow(const stats::Judgement& judged) {
    bool added = false;
    for (const auto& c : judged.comparisons.comparisons) {
      if (c.comparison.verdict != stats::Verdict::kInconclusive) continue;
      if (stopped.count(c.candidate_label) != 0) continue;
      if (static_cast<int>(c.candidate_ms.size()) >= cap() ||
          config_index(plan, c.candidate_label) < 0) {
        continue;
      }
      if (add_block(c)) {
        added = true;
      } else {
        stopped[c.candidate_label] = "runs keep failing: the last block brought no ok run";
      }
    }
    return added;
  }

  void decide(const stats::Judgement& judged) {
    for (const auto& c : judged.comparisons.comparisons) {
      SweepDecision d{c.candidate_label, "verdict reached"};
      if (auto it = stopped.find(c.candidate_label); it != stopped.end()) {
        d.reason = it->second;
      } else if (c.comparison.verdict == stats::Verdict::kInconclusive) {
        d.reason = "at max_repetitions (" + std::to_string(cap()) + ")";
      }
      result.decisions.push_back(d);
    }
    for (const auto& s : judged.comparisons.skipped) {
      result.decisions.push_back({s.label, "no ok run: " + s.reason});
    }
  }
};

}  // namespace

SweepDecisions decide_sweep(storage::Db& store, manifest::Plan& plan,
                            const launch::ExecuteOptions& options,
                            const launch::ExecuteResult& planned, launch::ProgressSink* progress) {
  Sampler sampler{store, plan, options, progress, {}, {}};
  if (plan.settings.sampling != "adaptive") return sampler.result;
  if (options.shard.count > 1) {
    sampler.result.not_sampled =
        "a shard holds part of the sweep: merge the shards, then `culprit run` the manifest on "
        "the merged store adds the runs";
    return sampler.result;
  }
  if (planned.stopped_early) {
    sampler.result.not_sampled = "the sweep stopped early (" + planned.stop_reason + ")";
    return sampler.result;
  }
  // Until no candidate is inconclusive below the cap: a later candidate's baseline runs can
  // move an earlier decision (compare judges on every stored run), so each pass re-judges all.
  while (true) {
    auto judged = judge(store, plan, sampler.result.not_sampled);
    if (!judged) return sampler.result;
    if (!sampler.grow(*judged)) {
      sampler.decide(*judged);
      sampler.result.judgement = std::move(*judged);
      sampler.result.sampled = true;
      return sampler.result;
    }
  }
}

}  // namespace culprit::bisect
