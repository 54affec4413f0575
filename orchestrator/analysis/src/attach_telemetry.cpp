#include <filesystem>
#include <set>

#include "culprit/analysis/attach.hpp"
#include "culprit/analysis/why_telemetry.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/telemetry.hpp"
#include "culprit/storage/evidence.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {
namespace {

namespace tm = importers::telemetry;

// Each sample's Unix time: its own, else --start + its number x --period-ms.
double sample_time(const tm::Series& s, const tm::Sample& x, const TelemetryAttach& o) {
  if (x.time_s) return *x.time_s;
  const auto start = tm::parse_time(o.start);
  if (o.start.empty() || o.period_ms <= 0) {
    throw UsageError(s.file + " has no timestamps: pass --start TIME (ISO-8601) and --period-ms");
  }
  if (!start)
    throw UsageError("--start " + o.start + ": expected ISO-8601, e.g. 2026-07-22T21:41:45Z");
  return *start + x.index * o.period_ms / 1e3;
}

int rank_of(const tm::Series& s, const tm::Sample& x, const std::map<int, int>& gpu_rank,
            const AttachTarget& t, bool one_gpu) {
  const auto it = gpu_rank.find(x.gpu);
  if (it != gpu_rank.end()) return it->second;
  if (!gpu_rank.empty()) {
    throw UsageError(s.file + ":" + std::to_string(x.line) + ": GPU " + std::to_string(x.gpu) +
                     " has no rank in --gpu-rank");
  }
  return one_gpu && t.rank ? *t.rank : x.gpu;
}

}  // namespace

AttachSummary attach_telemetry(storage::Db& store, const std::vector<std::string>& files,
                               const AttachTarget& target, const TelemetryAttach& o) {
  std::vector<tm::Series> all;
  for (const std::string& f : files)
    all.push_back(tm::read_telemetry(f, tm::parse_format(o.format)));
  const auto gpu_rank = o.gpu_rank.empty() ? std::map<int, int>{} : parse_gpu_rank(o.gpu_rank);
  if (!storage::run_exists(store, target.run_id)) {
    throw UsageError("run " + std::to_string(target.run_id) + " is not in " + store.path() +
                     ": list the runs with `culprit runs`");
  }
  const storage::RunData run =
      storage::load_run(store, target.run_id, storage::EventSelection::kStepsOnly);
  AttachSummary s;
  s.run_id = target.run_id;
  s.rank = target.rank.value_or(-1);
  std::vector<storage::TelemetryRow> rows;
  for (const tm::Series& series : all) {
    std::set<int> gpus;
    for (const auto& x : series.samples) gpus.insert(x.gpu);
    const std::string source = std::filesystem::path(series.file).filename().string();
    for (const auto& x : series.samples) {
      const int rank = rank_of(series, x, gpu_rank, target, gpus.size() == 1);
      if (run.position_of(rank) < 0) {  // the job's rank ids
        throw UsageError(series.file + ":" + std::to_string(x.line) + ": GPU " +
                         std::to_string(x.gpu) + " maps to rank " + std::to_string(rank) +
                         ", which run " + std::to_string(s.run_id) + " does not have (" +
                         run.rank_list() + "): pass --gpu-rank GPU=RANK,...");
      }
      rows.push_back(
          {rank, x.gpu, x.host, source, x.field, sample_time(series, x, o) * 1e9, x.value});
    }
    s.warnings.insert(s.warnings.end(), series.warnings.begin(), series.warnings.end());
  }
  s.launches = static_cast<std::int64_t>(rows.size());
  s.metrics = s.launches;
  storage::put_telemetry(store, s.run_id, rows);
  return s;
}

}  // namespace culprit::analysis
