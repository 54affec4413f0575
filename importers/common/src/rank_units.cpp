// The ranks inside one file (docs/importers.md, "Ranks"): `nsys profile` around a node's launcher
// writes one report holding every local rank; a Kineto trace is one process's, which may drive
// several GPUs. A rank is a process (globalPid) that ran kernels, or a device when one process
// drives several GPUs (or by --rank-by). Which number each gets is the format's (nsys_ranks.cpp,
// kineto_ranks.cpp).
#include <utility>

#include "culprit/importers/rank_units.hpp"

namespace culprit::importers {
namespace {

// The processes that ran kernels, each with the devices of its kernels (copies do not count).
std::map<std::int64_t, std::set<int>> kernel_processes(const RankTrace& t) {
  std::map<std::int64_t, std::set<int>> out;
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    const TraceRecord& r = t.records[i];
    if (r.on_device && (r.kind == RecordKind::kKernel || r.kind == RecordKind::kCollectiveWork))
      out[t.record_process[i]].insert(r.device);
  }
  return out;
}

}  // namespace

ExportUnits export_units(RankTrace whole, RankBy by) {
  ExportUnits out;
  if (!whole.record_process.empty()) out.processes = kernel_processes(whole);
  for (const auto& [process, devices] : out.processes) {
    const bool per_device = by == RankBy::kDevice || (by == RankBy::kAuto && devices.size() > 1);
    if (!per_device) {
      out.units.push_back({process, devices.size() == 1 ? *devices.begin() : -1, false});
      continue;
    }
    for (int d : devices) out.units.push_back({process, d, true});
  }
  out.whole = std::move(whole);
  return out;
}

// The records of `u`; `taken` marks the records some rank already counted as read (an NVTX
// range of a process driving two GPUs belongs to both of its ranks, and is counted once).
RankTrace unit_trace(const RankTrace& t, const Unit& u,
                     const std::map<std::int64_t, int>& kernel_device, std::vector<char>& taken) {
  RankTrace out;
  out.file = t.file;
  out.format = t.format;
  out.backend = t.backend;
  out.host = t.host;
  out.clock_domain = t.clock_domain;
  out.process = u.process;
  out.device = u.per_device ? u.device : -1;
  out.names = t.names;
  out.kernel_classes = t.kernel_classes;
  auto flops = t.op_flops.begin();
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    if (t.record_process[i] != u.process) continue;
    const TraceRecord& r = t.records[i];
    if (u.per_device && r.on_device && r.device != u.device) continue;
    if (u.per_device && r.kind == RecordKind::kRuntime) {
      // A launch belongs to the device of its kernel; launches of no kernel go to every device.
      auto k = kernel_device.find(r.correlation);
      if (k != kernel_device.end() && k->second != u.device) continue;
    }
    // A GEMM operator's FLOPs (by record index) follow its record.
    while (flops != t.op_flops.end() && flops->first < i) ++flops;
    if (flops != t.op_flops.end() && flops->first == i)
      out.op_flops.emplace_back(static_cast<std::uint32_t>(out.records.size()), flops->second);
    out.records.push_back(r);
    if (!taken[i]) ++out.events_read;
    taken[i] = 1;
  }
  return out;
}

std::vector<RankTrace> unit_traces(ExportUnits& e) {
  std::map<std::int64_t, int> kernel_device;  // correlation id -> device of its kernel
  for (const TraceRecord& r : e.whole.records) {
    if (r.on_device) kernel_device[r.correlation] = r.device;
  }
  std::vector<RankTrace> out;
  std::vector<char> taken(e.whole.records.size(), 0);
  std::int64_t counted = 0;
  for (const Unit& u : e.units) {
    out.push_back(unit_trace(e.whole, u, kernel_device, taken));
    counted += out.back().events_read;
  }
  const auto others = static_cast<std::int64_t>(std::count(taken.begin(), taken.end(), 0));
  if (others > 0) {
    out[0].warnings.push_back(e.whole.file + ": " + std::to_string(others) +
                              " event(s) of processes that ran no kernel are not kept");
  }
  // The file's rows no rank holds (marks, other processes) are counted on its first rank.
  out[0].events_read += e.whole.events_read - counted;
  for (const std::string& x : e.whole.warnings) out[0].warnings.push_back(x);
  return out;
}

std::string process_text(const Unit& u) {
  return "process " + std::to_string(u.process >> 24) +
         (u.device >= 0 ? ", GPU " + std::to_string(u.device) : std::string());
}

}  // namespace culprit::importers
