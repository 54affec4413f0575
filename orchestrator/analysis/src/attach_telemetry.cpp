// `culprit import --format dcgm|nvidia-smi|nvml-csv --attach RUN`: telemetry samples placed on
// the run's ranks (gpu_ranks.hpp) and on its aligned clock (meta unix_offset_ns), kept only where
// they fall in the run's steps. Every file is read and every sample placed before anything is
// stored.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <set>

#include "culprit/analysis/attach.hpp"
#include "culprit/analysis/gpu_ranks.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/telemetry.hpp"
#include "culprit/storage/evidence.hpp"
#include "culprit/storage/run_data.hpp"
#include "runfile/meta_keys.hpp"

namespace culprit::analysis {
namespace {

namespace tm = importers::telemetry;

// Each sample's Unix time: its own, else --start + its number x --period-ms.
double sample_time(const tm::Series& s, const tm::Sample& x, const TelemetryAttach& o) {
  if (x.time_s) return *x.time_s;
  const auto start = tm::parse_time(o.start);
  if (o.start.empty() || !(std::isfinite(o.period_ms) && o.period_ms > 0)) {
    throw UsageError(s.file +
                     " has no timestamps: pass --start TIME (ISO-8601) and --period-ms (a "
                     "positive finite number of milliseconds)");
  }
  if (!start)
    throw UsageError("--start " + o.start + ": expected ISO-8601, e.g. 2026-07-22T21:41:45Z");
  return *start + x.index * o.period_ms / 1e3;
}

// Unix seconds as ISO-8601 UTC to the millisecond (rounded: 1784756505.304 is .304, not .303).
std::string utc(double unix_s) {
  const auto ms = static_cast<long long>(std::llround(unix_s * 1e3));
  const auto t = static_cast<std::time_t>(ms / 1000 - (ms % 1000 < 0 ? 1 : 0));
  std::tm parts{};
  gmtime_r(&t, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  return fmt::format("{}.{:03d}Z", text, static_cast<int>((ms % 1000 + 1000) % 1000));
}

// The run's clock and span: Unix time - unix_offset_ns is its aligned time.
struct RunClock {
  std::int64_t run_id = 0;
  std::vector<int> rank_ids;  // the job's ids of the run's ranks (a partial import's are sparse)
  std::string rank_list;      // for messages: "0..3", or "2, 3"
  std::int64_t offset_ns = 0;
  TimeWindow span;              // from the first step's begin to the last step's end, aligned
  std::set<std::string> hosts;  // of its ranks, from provenance
};

RunClock run_clock(storage::Db& store, std::int64_t run_id) {
  if (!storage::run_exists(store, run_id)) {
    throw UsageError("run " + std::to_string(run_id) + " is not in " + store.path() +
                     ": list the runs with `culprit runs`");
  }
  const storage::RunData run =
      storage::load_run(store, run_id, storage::EventSelection::kStepsOnly);
  RunClock c{run_id, {}, run.rank_list(), 0, {}, {}};
  for (int p = 0; p < run.ranks; ++p) c.rank_ids.push_back(run.rank_id(p));
  const auto meta = run.meta.find(runfile::meta::kUnixOffsetNs);
  const std::string text = meta == run.meta.end() ? "" : meta->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), c.offset_ns);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw UsageError(fmt::format(
        "run {} records no Unix time of its clock (run meta unix_offset_ns: culprit-step, "
        "culprit-sim, stepclock and the Python module write it; runs recorded before it, and "
        "imported traces, have none), so telemetry samples cannot be placed in its steps",
        run_id));
  }
  const std::vector<StepWindow> steps = step_windows(run);
  if (steps.empty()) throw UsageError(fmt::format("run {} has no complete step", run_id));
  c.span = {steps.front().window.begin_ns, steps.back().window.end_ns};
  return c;
}

GpuRanks gpu_ranks(const std::vector<RankGpu>& located, const std::vector<tm::Series>& all,
                   const AttachTarget& target, const TelemetryAttach& o) {
  if (!o.gpu_rank.empty()) return GpuRanks::explicit_map(parse_gpu_rank(o.gpu_rank));
  std::set<std::pair<std::string, int>> gpus;
  for (const tm::Series& s : all) {
    for (const tm::Sample& x : s.samples) gpus.emplace(x.host, x.gpu);
  }
  if (gpus.size() == 1 && target.rank) return GpuRanks::one_rank(*target.rank);
  return GpuRanks::from_provenance(located);
}

// The host a sample was taken on: its own, else --host, else the run's only host.
std::string host_of(const tm::Series& s, const tm::Sample& x, const RunClock& run,
                    const TelemetryAttach& o) {
  if (!x.host.empty()) return x.host;
  if (!o.host.empty()) return o.host;
  if (run.hosts.size() <= 1) return run.hosts.empty() ? "" : *run.hosts.begin();
  throw UsageError(fmt::format(
      "{}:{}: the file names no host and run {} ran on {} hosts ({}): pass --host NAME (the host "
      "the file was taken on) or --gpu-rank GPU=RANK,...",
      s.file, x.line, run.run_id, run.hosts.size(), fmt::join(run.hosts, ", ")));
}

struct Placed {
  std::vector<storage::TelemetryRow> rows;
  std::int64_t outside = 0, unmapped = 0;
  double first_s = 1e300, last_s = -1e300;  // the files' sample times (Unix s)
};

void place(const tm::Series& s, const RunClock& run, const GpuRanks& map, const TelemetryAttach& o,
           Placed& out) {
  const std::string source = std::filesystem::path(s.file).filename().string();
  for (const tm::Sample& x : s.samples) {
    const double unix_s = sample_time(s, x, o);
    out.first_s = std::min(out.first_s, unix_s);
    out.last_s = std::max(out.last_s, unix_s);
    const int rank = map.rank_of(host_of(s, x, run, o), x.gpu);
    if (rank >= 0 &&
        std::find(run.rank_ids.begin(), run.rank_ids.end(), rank) == run.rank_ids.end()) {
      throw UsageError(fmt::format(
          "{}:{}: GPU {} maps to rank {}, which run {} does not have ({}): check --gpu-rank",
          s.file, x.line, x.gpu, rank, run.run_id, run.rank_list));
    }
    const double aligned_ns = unix_s * 1e9 - static_cast<double>(run.offset_ns);
    if (rank < 0) {
      ++out.unmapped;
    } else if (aligned_ns < run.span.begin_ns || aligned_ns > run.span.end_ns) {
      ++out.outside;
    } else {
      out.rows.push_back({rank, x.gpu, x.host, source, x.field, aligned_ns, x.value});
    }
  }
}

void explain_empty(const Placed& p, const RunClock& run, const std::vector<std::string>& files) {
  const double offset_s = static_cast<double>(run.offset_ns) / 1e9;
  if (p.unmapped > 0 && p.outside == 0) {
    throw UsageError(fmt::format(
        "{}: no sample is of a GPU that served a rank of run {}: pass --gpu-rank GPU=RANK,...",
        fmt::join(files, ", "), run.run_id));
  }
  throw UsageError(fmt::format(
      "{}: no sample falls inside run {}: the samples span {} .. {}, the run's steps {} .. {} "
      "(UTC): telemetry of another run, or a host clock that is off?",
      fmt::join(files, ", "), run.run_id, utc(p.first_s), utc(p.last_s),
      utc(run.span.begin_ns / 1e9 + offset_s), utc(run.span.end_ns / 1e9 + offset_s)));
}

}  // namespace

AttachSummary attach_telemetry(storage::Db& store, const std::vector<std::string>& files,
                               const AttachTarget& target, const TelemetryAttach& o) {
  std::vector<tm::Series> all;
  for (const std::string& f : files)
    all.push_back(tm::read_telemetry(f, tm::parse_format(o.format)));
  RunClock run = run_clock(store, target.run_id);
  const std::vector<RankGpu> located =
      rank_gpus(storage::load_rank_provenance(store, run.run_id), run.rank_ids);
  for (const RankGpu& g : located) {
    if (!g.host.empty()) run.hosts.insert(g.host);
  }
  const GpuRanks map = gpu_ranks(located, all, target, o);
  Placed placed;
  AttachSummary s;
  for (const tm::Series& series : all) {
    place(series, run, map, o, placed);
    s.warnings.insert(s.warnings.end(), series.warnings.begin(), series.warnings.end());
  }
  if (placed.rows.empty()) explain_empty(placed, run, files);
  s.run_id = target.run_id;
  s.rank = target.rank.value_or(-1);
  s.telemetry = true;
  s.gpu_rule = map.rule();
  s.gpu_ranks = map.used();
  s.outside = placed.outside;
  s.unmapped = placed.unmapped;
  s.warnings.push_back("GPU -> rank: " + s.gpu_rule);
  if (placed.outside > 0) {
    s.warnings.push_back(
        fmt::format("{} sample(s) outside run {}'s steps left out", placed.outside, s.run_id));
  }
  if (placed.unmapped > 0) {
    s.warnings.push_back(fmt::format("{} sample(s) of GPUs that served no rank of run {} left out",
                                     placed.unmapped, s.run_id));
  }
  s.launches = static_cast<std::int64_t>(placed.rows.size());
  s.metrics = s.launches;
  storage::put_telemetry(store, s.run_id, placed.rows);
  return s;
}

}  // namespace culprit::analysis
