#include "culprit/analysis/why_telemetry.hpp"

#include <algorithm>

namespace culprit::analysis {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool inside(double t, const std::vector<TimeWindow>& windows) {
  if (windows.empty()) return true;
  return std::any_of(windows.begin(), windows.end(),
                     [&](const TimeWindow& w) { return t >= w.begin_ns && t < w.end_ns; });
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
  e.rank_clock_hz = median(mine->second);
  e.rank_samples = static_cast<int>(mine->second.size());
  std::vector<double> peers;
  for (const auto& [r, clocks] : by_rank) {
    if (r == rank) continue;
    peers.push_back(median(clocks));
    e.peer_samples += static_cast<int>(clocks.size());
  }
  if (peers.empty()) return std::nullopt;
  e.peers = static_cast<int>(peers.size());
  e.peers_clock_hz = median(peers);
  e.where = where;
  return e;
}

std::optional<ClockEvidence> clock_evidence(const importers::telemetry::Series& series, int rank,
                                            const std::map<int, int>& gpu_rank) {
  std::vector<storage::TelemetryRow> rows;
  for (const auto& s : series.samples) {
    const auto it = gpu_rank.find(s.gpu);
    rows.push_back({it == gpu_rank.end() ? s.gpu : it->second, s.gpu, s.host, series.file, s.field,
                    s.time_s.value_or(0.0) * 1e9, s.value});
  }
  return clock_evidence(rows, rank, {}, "over the whole file");
}

}  // namespace culprit::analysis
