#include "culprit/analysis/telemetry_view.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "culprit/analysis/step_times.hpp"

namespace culprit::analysis {

std::vector<StepWindow> step_windows(const storage::RunData& run) {
  std::vector<StepWindow> out;
  double previous = std::nan("");
  for (const StepTime& s : step_times(run)) {
    // The first step starts when the last rank began it: its boundary minus its time.
    const double begin = std::isnan(previous) ? s.boundary_ns - s.time_ms * 1e6 : previous;
    out.push_back({s.step, s.warmup, {begin, s.boundary_ns}});
    previous = s.boundary_ns;
  }
  return out;
}

namespace {

const char* unit_of(const std::string& field) {
  if (field == "SM_CLOCK" || field == "MEM_CLOCK") return "hz";
  if (field == "POWER") return "W";
  if (field == "TEMPERATURE") return "C";
  if (field == "CLOCK_THROTTLE_REASONS") return "";
  return "%";
}

// The steady-state step holding time t; -1: none (binary search: windows are in time order).
int steady_step_at(const std::vector<StepWindow>& steps, double t) {
  const auto it =
      std::upper_bound(steps.begin(), steps.end(), t,
                       [](double v, const StepWindow& s) { return v < s.window.end_ns; });
  if (it == steps.end() || t < it->window.begin_ns || it->warmup) return -1;
  return static_cast<int>(it - steps.begin());
}

struct Sum {
  double total = 0.0;
  int n = 0;
  void add(double v) {
    total += v;
    ++n;
  }
};

}  // namespace

const FieldAverages* RunTelemetry::field(std::string_view name) const {
  for (const FieldAverages& f : fields) {
    if (f.field == name) return &f;
  }
  return nullptr;
}

const FieldAverages* RunTelemetry::activity() const {
  for (const char* name : {"GPU_UTIL", "GR_ENGINE_ACTIVE", "SM_ACTIVE"}) {
    if (const FieldAverages* f = field(name)) return f;
  }
  return nullptr;
}

std::optional<RunTelemetry> run_telemetry(const std::vector<storage::TelemetryRow>& rows,
                                          std::int64_t run_id,
                                          const std::vector<StepWindow>& steps) {
  if (rows.empty()) return std::nullopt;
  RunTelemetry t;
  t.run_id = run_id;
  t.samples = static_cast<int>(rows.size());
  t.steady_steps = static_cast<int>(
      std::count_if(steps.begin(), steps.end(), [](auto& s) { return !s.warmup; }));
  std::set<std::string> sources;
  std::map<std::string, std::map<int, Sum>> sums;  // field -> rank -> sum
  for (const storage::TelemetryRow& r : rows) {
    sources.insert(r.source);
    if (steady_step_at(steps, r.time_ns) >= 0) sums[r.field][r.rank].add(r.value);
  }
  t.sources.assign(sources.begin(), sources.end());
  for (const auto& [field, ranks] : sums) {
    FieldAverages f{field, unit_of(field), 0, 0.0, {}};
    double total = 0.0;
    for (const auto& [rank, sum] : ranks) {
      f.ranks.push_back({rank, sum.n, sum.total / sum.n});
      f.samples += sum.n;
      total += sum.total;
    }
    f.fleet_mean = total / f.samples;
    t.fields.push_back(std::move(f));
  }
  return t;
}

std::optional<TelemetryMap> telemetry_map(const std::vector<storage::TelemetryRow>& rows,
                                          const std::vector<StepWindow>& steps) {
  for (const char* name : {"SM_CLOCK", "GPU_UTIL", "SM_ACTIVE", "POWER"}) {
    std::map<int, std::map<int, Sum>> cells;  // rank -> step index -> sum
    for (const storage::TelemetryRow& r : rows) {
      if (r.field != name) continue;
      const int at = steady_step_at(steps, r.time_ns);
      if (at >= 0) cells[r.rank][at].add(r.value);
    }
    if (cells.empty()) continue;
    TelemetryMap m;
    m.field = name;
    m.unit = unit_of(name);
    std::vector<int> columns;  // step index -> column
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!steps[i].warmup) m.steps.push_back(steps[i].step);
      columns.push_back(steps[i].warmup ? -1 : static_cast<int>(m.steps.size()) - 1);
    }
    for (const auto& [rank, by_step] : cells) {
      m.ranks.push_back(rank);
      std::vector<double>& row = m.values.emplace_back(m.steps.size(), std::nan(""));
      for (const auto& [index, sum] : by_step) {
        row[static_cast<std::size_t>(columns[static_cast<std::size_t>(index)])] = sum.total / sum.n;
      }
    }
    return m;
  }
  return std::nullopt;
}

std::optional<TelemetryMap> stored_telemetry_map(storage::Db& store, std::int64_t run_id) {
  const std::vector<storage::TelemetryRow> rows = storage::load_telemetry(store, run_id);
  if (rows.empty()) return std::nullopt;
  return telemetry_map(
      rows, step_windows(storage::load_run(store, run_id, storage::EventSelection::kStepsOnly)));
}

}  // namespace culprit::analysis
