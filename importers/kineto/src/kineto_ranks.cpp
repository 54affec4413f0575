// The ranks of Kineto files (docs/importers.md, "Ranks"): libkineto writes one file per process,
// its GPU events under the device's pid. A process that drives several GPUs (single-process
// multi-GPU training, a pipeline's stages in one process) is a rank per GPU, as in Nsight Systems
// exports, unless --rank-by process: its CPU timeline (steps, regions, collective calls) belongs
// to every one of them, each GPU's kernels and their launches to that GPU's rank only.
#include <set>
#include <string>
#include <utility>

#include "culprit/importers/kineto.hpp"
#include "culprit/importers/rank_units.hpp"

namespace culprit::importers {
namespace {

std::set<int> kernel_devices(const RankTrace& t) {
  std::set<int> out;
  for (const TraceRecord& r : t.records) {
    if (r.on_device && (r.kind == RecordKind::kKernel || r.kind == RecordKind::kCollectiveWork))
      out.insert(r.device);
  }
  return out;
}

std::string gpu_list(const std::set<int>& devices) {
  std::string out;
  for (int d : devices) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

// One file's ranks, a rank per GPU of its process.
std::vector<RankTrace> per_gpu_ranks(RankTrace file, const std::set<int>& devices) {
  const int n = static_cast<int>(devices.size());
  const std::int64_t process = file.process >= 0 ? file.process : 0;
  file.record_process.assign(file.records.size(), process);
  const std::string said = file.rank_source;
  const int base = file.rank;  // the process's rank, -1 when neither header nor name says one
  const int world = file.world_size > 0 ? file.world_size * n : -1;
  const std::string rule =
      "a rank per GPU of the process: " +
      (base >= 0 ? "its rank (" + said + ") x " + std::to_string(n) + " + " : std::string()) +
      "the GPU's place among its " + std::to_string(n) + " GPUs";
  std::string warning = file.file + ": one process drives " + std::to_string(n) + " GPUs (" +
                        gpu_list(devices) + "): " + rule +
                        " (its CPU timeline is each rank's; --rank-by process keeps it one rank)";
  ExportUnits units = export_units(std::move(file), RankBy::kDevice);
  std::vector<RankTrace> out = unit_traces(units);
  for (std::size_t i = 0; i < out.size(); ++i) {
    RankTrace& r = out[i];
    r.rank = (base >= 0 ? base * n : 0) + static_cast<int>(i);
    r.rank_source = rule + " (" + process_text(units.units[i]) + ")";
    r.world_size = world;
    r.clock_domain = r.file;  // one process's timestamps: one clock
    r.group_ranks = units.whole.group_ranks;
    r.record_process = {};
  }
  out[0].warnings.insert(out[0].warnings.begin(), std::move(warning));
  return out;
}

}  // namespace

std::vector<RankTrace> split_kineto_ranks(std::vector<RankTrace> files, RankBy by) {
  std::vector<RankTrace> out;
  for (RankTrace& f : files) {
    const std::set<int> devices = kernel_devices(f);
    const bool split = devices.size() > 1 && by != RankBy::kProcess;
    if (!split) {
      out.push_back(std::move(f));
      continue;
    }
    for (RankTrace& r : per_gpu_ranks(std::move(f), devices)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace culprit::importers
