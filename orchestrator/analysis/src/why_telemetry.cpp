#include "culprit/analysis/why_telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "culprit/common/median.hpp"

namespace culprit::analysis {
namespace {

bool inside(double t, const std::vector<TimeWindow>& windows) {
  if (windows.empty()) return true;
  return std::any_of(windows.begin(), windows.end(),
                     [&](const TimeWindow& w) { return t >= w.begin_ns && t < w.end_ns; });
}

int rank_of(const std::map<int, int>& gpu_rank, int gpu) {
  const auto it = gpu_rank.find(gpu);
  return it == gpu_rank.end() ? gpu : it->second;
}

}  // namespace

std::optional<ClockEvidence> clock_evidence(const std::vector<storage::TelemetryRow>& samples,
                                            int rank, const std::vector<TimeWindow>& windows,
                                            const std::string& where) {
  std::map<int, std::vector<double>> by_rank;
  for (const storage::TelemetryRow& s : samples) {
    if (s.field == "SM_CLOCK" && inside(s.time_ns, windows)) by_rank[s.rank].push_back(s.value);
  }
  const auto mine = by_rank.find(rank);
  if (mine == by_rank.end()) return std::nullopt;
  ClockEvidence e;
  e.rank = rank;
  e.rank_clock_hz = median_of(mine->second);
  e.rank_samples = static_cast<int>(mine->second.size());
  std::vector<double> peers;
  for (const auto& [r, clocks] : by_rank) {
    if (r == rank) continue;
    peers.push_back(median_of(clocks));
    e.peer_samples += static_cast<int>(clocks.size());
  }
  if (peers.empty()) return std::nullopt;
  e.peers = static_cast<int>(peers.size());
  e.peers_clock_hz = median_of(peers);
  e.where = where;
  return e;
}

std::optional<ClockEvidence> clock_evidence(const importers::telemetry::Series& series, int rank,
                                            const std::map<int, int>& gpu_rank) {
  std::vector<storage::TelemetryRow> rows;
  for (const auto& s : series.samples) {
    rows.push_back({rank_of(gpu_rank, s.gpu), s.gpu, s.host, series.file, s.field,
                    s.time_s.value_or(0.0) * 1e9, s.value});
  }
  return clock_evidence(rows, rank, {}, "over the whole file");
}

std::string no_clock_evidence_reason(const importers::telemetry::Series& series, int rank,
                                     const std::map<int, int>& gpu_rank) {
  std::map<int, int> gpu_of_rank;
  for (const auto& s : series.samples) {
    if (s.field == "SM_CLOCK") gpu_of_rank[rank_of(gpu_rank, s.gpu)] = s.gpu;
  }
  if (gpu_of_rank.empty()) return "no SM clock sample in the file";
  if (!gpu_of_rank.contains(rank)) {
    std::string held;
    for (const auto& [r, gpu] : gpu_of_rank) {
      held += fmt::format("{}rank {} (GPU {})", held.empty() ? "" : ", ", r, gpu);
    }
    return fmt::format(
        "no SM clock sample of rank {}; the file's are of {} (map GPUs to ranks with --gpu-rank "
        "GPU=RANK,...)",
        rank, held);
  }
  return fmt::format(
      "SM clock samples of rank {} (GPU {}) only: clock_throttling compares the rank's clock with "
      "its peers', so give telemetry that holds the job's other GPUs too (a DCGM or nvidia-smi "
      "export of the whole node)",
      rank, gpu_of_rank.at(rank));
}

}  // namespace culprit::analysis
