// The job's rank ids in an attribution: computed on rank positions (every per-rank vector of the
// analysis is indexed 0..ranks-1), shown with the ids the job gave its ranks.
#include "culprit/analysis/attribution.hpp"

namespace culprit::analysis {
namespace {

void relabel(Culprit& c, const std::function<int(int)>& to) {
  c.rank = to(c.rank);
}

void relabel(StepAttribution& s, const std::function<int(int)>& to) {
  StepDecomposition& d = s.decomposition;
  d.last_finisher = to(d.last_finisher);
  for (Component& c : d.components) c.rank = to(c.rank);
  relabel(d.culprit, to);
  s.last_arriver = to(s.last_arriver);
}

}  // namespace

RunAttribution with_ranks(RunAttribution a, const std::function<int(int)>& to) {
  // A negative rank means "none" everywhere; it stays as it is.
  auto map = [&](int rank) { return rank < 0 ? rank : to(rank); };
  for (StepAttribution& s : a.steps) relabel(s, map);
  a.culprit.rank = map(a.culprit.rank);
  for (auto& [rank, count] : a.last_arriver_counts) rank = map(rank);
  for (int& rank : a.alignment.contradicted_ranks) rank = map(rank);
  for (DelayCost& c : a.costs.costs) c.rank = map(c.rank);
  a.what_if.rank = map(a.what_if.rank);
  return a;
}

RunAttribution in_positions(const RunAttribution& a, const storage::RunData& run) {
  if (run.rank_ids.empty()) return a;
  return with_ranks(a, [&](int id) { return run.position_of(id); });
}

}  // namespace culprit::analysis
