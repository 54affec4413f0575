#pragma once
// Scoring blind attribution against the injection truth (`culprit validate`). This is the only
// code that reads a run's configuration echo (storage::load_run_config_echo, parsed by
// stepmodel::parse_run_config): attribution runs blind first, on a storage::RunData that has no
// echo, then its answer is compared with the delay that was injected.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/analysis/attribution.hpp"
#include "culprit/storage/db.hpp"
#include "stepmodel/config.hpp"

namespace culprit::analysis {

struct InjectedDelay {
  int rank = -1;
  std::string phase;
  int layer = -1;
  int microbatch = -1;
  double ms = 0;
};

// The largest injected delay of a run (from its configuration echo); nullopt for a control run
// (no delay and no slowdown). Runs with only slowdowns are reported as `unscored`.
struct InjectionTruth {
  std::optional<InjectedDelay> delay;
  bool other_injection = false;  // slowdowns: not a (rank, phase) case
};
InjectionTruth injection_truth(const stepmodel::Injections& inject);
// The truth of a stored run, from its configuration echo; none when the echo is absent or is not
// a resolved configuration.
InjectionTruth stored_injection_truth(storage::Db& store, std::int64_t run_id);

struct ValidationCase {
  std::int64_t run_id = 0;
  std::string config;
  InjectedDelay injected;
  RunCulprit blamed;
  double median_step_ms = 0;
  bool hit = false;  // blamed rank and phase are the injected ones
};

struct ValidationControl {
  std::int64_t run_id = 0;
  std::string config;
  RunCulprit blamed;  // a false positive when it blames the code (is_code)
  double median_step_ms = 0;
};

// How a run counts: a case (a delay was injected: scored against the blame), a control (the
// baseline, or a delay level without a delay: blaming the code is a false positive), an
// uninjected change (another version, rank count or model: what it is blamed for is reported,
// "regressed without injection", never scored), or unscored (slowdowns only).
enum class RunRole : std::uint8_t { kCase, kControl, kUninjected, kUnscored };
RunRole run_role(bool is_baseline, const std::string& factor, const InjectionTruth& truth);

struct Scorecard {
  std::string experiment;
  std::vector<ValidationCase> cases;
  std::vector<ValidationControl> controls;
  std::vector<ValidationControl> uninjected;  // RunRole::kUninjected runs, with their blame
  int unscored = 0;
  int hits = 0;
  double accuracy = 0;  // hits / cases
  // The same over delays of at least 2 % of the controls' median step time.
  int large_cases = 0;
  int large_hits = 0;
  double control_median_ms = 0;
  int false_positives = 0;
  int environment_controls = 0;    // controls whose divergence the machine explains (not counted)
  double false_positive_rate = 0;  // over controls
  std::optional<double> smallest_hit_ms;  // the smallest delay blamed correctly in every run
};

// Attributes every ok run of the experiment (`name`, or the most recent one) and scores it.
// `attributed`: blind attributions already made of some of these runs (e.g. by explain), used
// instead of attributing those runs again; only their configuration echo is then read.
Scorecard score_experiment(storage::Db& store, const std::string& name,
                           const AttributionOptions& options,
                           const std::map<std::int64_t, RunAttribution>* attributed = nullptr);

}  // namespace culprit::analysis
