// The telemetry attached to an explanation's runs: the dashboard figures over the steady steps,
// and clock_throttling's evidence from the blamed rank's slow steps only (a throttled GPU in one
// window is invisible in the whole run's median, and a healthy one can throttle outside it).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "culprit/storage/evidence.hpp"
#include "culprit/storage/run_data.hpp"
#include "why_stored_parts.hpp"

namespace culprit::analysis::why_detail {
namespace {

struct Loaded {
  std::vector<storage::TelemetryRow> rows;
  std::vector<StepWindow> steps;
};

std::optional<Loaded> load(storage::Db& store, std::int64_t run) {
  Loaded l{storage::load_telemetry(store, run), {}};
  if (l.rows.empty()) return std::nullopt;
  l.steps = step_windows(storage::load_run(store, run, storage::EventSelection::kStepsOnly));
  return l;
}

// The steady steps whose first unexplained divergence is on `rank`.
std::vector<int> slow_steps(const RunAttribution& a, int rank) {
  std::vector<int> out;
  for (const StepAttribution& s : a.steps) {
    const Culprit& c = s.decomposition.culprit;
    if (!s.decomposition.warmup && c.found && c.rank == rank) out.push_back(s.decomposition.step);
  }
  return out;
}

std::vector<TimeWindow> windows_of(const std::vector<StepWindow>& steps,
                                   const std::vector<int>& wanted) {
  std::vector<TimeWindow> out;
  for (const StepWindow& s : steps) {
    if (std::find(wanted.begin(), wanted.end(), s.step) != wanted.end()) out.push_back(s.window);
  }
  return out;
}

void clock_in_slow_steps(StoredTelemetry& t, const Loaded& l, std::int64_t run,
                         const RunAttribution& a, int rank) {
  t.slow_steps = slow_steps(a, rank);
  if (t.slow_steps.empty()) {
    t.note = fmt::format("rank {} is the first divergence in no steady step of run {}", rank, run);
    return;
  }
  const std::string where = fmt::format("in its {} slow step{} of run {}", t.slow_steps.size(),
                                        t.slow_steps.size() == 1 ? "" : "s", run);
  t.clock = clock_evidence(l.rows, rank, windows_of(l.steps, t.slow_steps), where);
  if (!t.clock) {
    t.note = fmt::format(
        "telemetry is attached to run {}, but no SM clock sample of rank {} and of a peer falls "
        "{} (steps {}): sample faster than the steps last (nsys --gpu-metrics-frequency, dcgm "
        "-d), or attach the peers' GPUs",
        run, rank, where, fmt::join(t.slow_steps, ","));
  }
}

}  // namespace

StoredTelemetry stored_telemetry(storage::Db& store, const Explanation& e,
                                 const RunAttribution* candidate) {
  StoredTelemetry t;
  if (!e.baseline_runs.empty()) {
    if (const auto l = load(store, e.baseline_runs.front()))
      t.baseline = run_telemetry(l->rows, e.baseline_runs.front(), l->steps);
  }
  if (e.candidate_runs.empty()) return t;
  const std::int64_t run = e.candidate_runs.front();
  const auto l = load(store, run);
  if (!l) return t;
  t.candidate = run_telemetry(l->rows, run, l->steps);
  if (e.culprit.found && candidate) clock_in_slow_steps(t, *l, run, *candidate, e.culprit.rank);
  return t;
}

}  // namespace culprit::analysis::why_detail
