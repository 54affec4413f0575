// The ranks inside one Nsight Systems export (docs/importers.md, "Ranks"): `nsys profile`
// around a node's launcher writes one report holding every local rank. A rank is a process
// (globalPid) that ran kernels, or a device when one process drives several GPUs (or by
// --rank-by). Its number: the rank the process says (the MPI Rank mark), else the device id,
// else the processes' order; the rule is stated in rank_source and in a warning.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "culprit/importers/nsys.hpp"

namespace culprit::importers {
namespace {

struct Unit {
  std::int64_t process = -1;
  int device = -1;          // its one device, -1 when several
  bool per_device = false;  // the rank is this device only (the process has several)
};

// The processes that ran kernels, each with its devices.
std::map<std::int64_t, std::set<int>> kernel_processes(const RankTrace& t) {
  std::map<std::int64_t, std::set<int>> out;
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    const TraceRecord& r = t.records[i];
    if (r.on_device) out[t.record_process[i]].insert(r.device);
  }
  return out;
}

std::vector<Unit> units_of(const std::map<std::int64_t, std::set<int>>& processes, RankBy by) {
  std::vector<Unit> units;
  for (const auto& [process, devices] : processes) {
    const bool per_device = by == RankBy::kDevice || (by == RankBy::kAuto && devices.size() > 1);
    if (!per_device) {
      units.push_back({process, devices.size() == 1 ? *devices.begin() : -1, false});
      continue;
    }
    for (int d : devices) units.push_back({process, d, true});
  }
  return units;
}

// The numbers of `units` by the first rule that gives each a distinct number.
std::pair<std::vector<int>, std::string> number_units(const RankTrace& t,
                                                      const std::vector<Unit>& units, RankBy by) {
  std::vector<int> said, device;
  for (const Unit& u : units) {
    auto p = t.process_ranks.find(u.process);
    said.push_back(p != t.process_ranks.end() && by != RankBy::kDevice ? p->second.rank : -1);
    device.push_back(u.device);
  }
  auto distinct = [](const std::vector<int>& v) {
    std::set<int> s(v.begin(), v.end());
    return !s.count(-1) && s.size() == v.size();
  };
  if (distinct(said)) return {said, "the rank each process says (NVTX mark 'MPI Rank')"};
  if (distinct(device)) return {device, "the CUDA device id"};
  std::vector<int> order(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) order[i] = static_cast<int>(i);
  return {order, "the order of (process, device) in the export"};
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
  for (std::size_t i = 0; i < t.records.size(); ++i) {
    if (t.record_process[i] != u.process) continue;
    const TraceRecord& r = t.records[i];
    if (u.per_device && r.on_device && r.device != u.device) continue;
    if (u.per_device && r.kind == RecordKind::kRuntime) {
      // A launch belongs to the device of its kernel; launches of no kernel go to every device.
      auto k = kernel_device.find(r.correlation);
      if (k != kernel_device.end() && k->second != u.device) continue;
    }
    out.records.push_back(r);
    if (!taken[i]) ++out.events_read;
    taken[i] = 1;
  }
  return out;
}

std::string process_text(const Unit& u) {
  return "process " + std::to_string(u.process >> 24) +
         (u.device >= 0 ? ", GPU " + std::to_string(u.device) : std::string());
}

}  // namespace

std::vector<RankTrace> split_nsys_ranks(RankTrace whole, RankBy by) {
  const std::map<std::int64_t, std::set<int>> processes =
      whole.record_process.empty() ? std::map<std::int64_t, std::set<int>>{}
                                   : kernel_processes(whole);
  const std::vector<Unit> units = units_of(processes, by);
  if (units.size() <= 1) {
    // One rank: the file name says it, else the launched process, else the process's mark.
    if (whole.rank < 0 && whole.launch_rank.rank >= 0) {
      whole.rank = whole.launch_rank.rank;
      whole.rank_source = whole.launch_rank.source;
    }
    auto mark =
        units.empty() ? whole.process_ranks.end() : whole.process_ranks.find(units[0].process);
    if (mark == whole.process_ranks.end() && whole.process_ranks.size() == 1)
      mark = whole.process_ranks.begin();
    if (whole.rank < 0 && mark != whole.process_ranks.end()) {
      whole.rank = mark->second.rank;
      whole.rank_source = mark->second.source;
    }
    whole.record_process = {};
    whole.record_seq = {};
    return {std::move(whole)};
  }
  std::map<std::int64_t, int> kernel_device;  // correlation id -> device of its kernel
  for (const TraceRecord& r : whole.records) {
    if (r.on_device) kernel_device[r.correlation] = r.device;
  }
  const auto [numbers, rule] = number_units(whole, units, by);
  std::vector<RankTrace> out;
  std::vector<char> taken(whole.records.size(), 0);
  std::int64_t counted = 0;
  for (std::size_t i = 0; i < units.size(); ++i) {
    RankTrace r = unit_trace(whole, units[i], kernel_device, taken);
    counted += r.events_read;
    r.rank = numbers[i];
    r.rank_source = rule + " (" + process_text(units[i]) + ")";
    out.push_back(std::move(r));
  }
  const bool per_device = units.size() > processes.size() || by == RankBy::kDevice;
  out[0].warnings.push_back(
      whole.file + ": " + std::to_string(units.size()) + " ranks in one export, " +
      (per_device ? "a rank per (process, GPU)" : "a rank per process (globalPid)") +
      "; rank numbers from " + rule +
      (rule.rfind("the rank each process says", 0) == 0
           ? std::string()
           : std::string(" (the export holds no RANK / LOCAL_RANK / OMPI_COMM_WORLD_RANK / "
                         "SLURM_PROCID per process, no MPI Rank mark per process and no NCCL "
                         "communicator ranks)")));
  const auto others = static_cast<std::int64_t>(std::count(taken.begin(), taken.end(), 0));
  if (others > 0) {
    out[0].warnings.push_back(whole.file + ": " + std::to_string(others) +
                              " event(s) of processes that ran no kernel are not kept");
  }
  // The file's rows no rank holds (marks, other processes) are counted on its first rank.
  out[0].events_read += whole.events_read - counted;
  for (const std::string& x : whole.warnings) out[0].warnings.push_back(x);
  return out;
}

}  // namespace culprit::importers
