#include "culprit/analysis/why_telemetry.hpp"

#include <algorithm>
#include <sstream>

#include "culprit/errors.hpp"
#include "culprit/importers/units.hpp"

namespace culprit::analysis {

std::map<int, int> parse_gpu_rank(const std::string& text) {
  std::map<int, int> out;
  std::istringstream in(text);
  for (std::string pair; std::getline(in, pair, ',');) {
    const auto eq = pair.find('=');
    const auto gpu = importers::parse_number(pair.substr(0, eq));
    const auto rank =
        eq == std::string::npos ? std::nullopt : importers::parse_number(pair.substr(eq + 1));
    if (!gpu || !rank || *gpu < 0 || *rank < 0) {
      throw UsageError("--gpu-rank " + text + ": expected GPU=RANK,... (e.g. 0=8,1=9)");
    }
    out[static_cast<int>(*gpu)] = static_cast<int>(*rank);
  }
  return out;
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool inside(const importers::telemetry::Sample& s,
            const std::vector<std::pair<double, double>>& windows) {
  if (windows.empty()) return true;
  if (!s.time_s) return false;
  return std::any_of(windows.begin(), windows.end(),
                     [&](const auto& w) { return *s.time_s >= w.first && *s.time_s < w.second; });
}

}  // namespace

std::optional<ClockEvidence> clock_evidence(const importers::telemetry::Series& series, int rank,
                                            const std::map<int, int>& gpu_rank,
                                            const std::vector<std::pair<double, double>>& windows) {
  std::map<int, std::vector<double>> by_rank;
  for (const auto& s : series.samples) {
    if (s.field != "SM_CLOCK" || !inside(s, windows)) continue;
    const auto it = gpu_rank.find(s.gpu);
    by_rank[it == gpu_rank.end() ? s.gpu : it->second].push_back(s.value);
  }
  const auto mine = by_rank.find(rank);
  if (mine == by_rank.end()) return std::nullopt;
  std::vector<double> peers;
  for (const auto& [r, clocks] : by_rank) {
    if (r != rank) peers.push_back(median(clocks));
  }
  if (peers.empty()) return std::nullopt;
  return ClockEvidence{rank, median(mine->second), median(peers), "SM_CLOCK"};
}

}  // namespace culprit::analysis
