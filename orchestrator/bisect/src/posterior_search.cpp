#include "posterior_search.hpp"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "bisection_rules.hpp"

namespace culprit::bisect {
namespace {

constexpr int kTopCandidates = 5;

}  // namespace

stats::ChangePointPosterior PosteriorSearch::posterior() const {
  stats::ChangePointOptions o;
  o.drift_window = kDriftWindow;
  o.drift_min_runs = options_.repetitions;
  return stats::change_point_posterior(ledger_.runs(), o);
}

PosteriorSearch::Pair PosteriorSearch::best_pair(const stats::ChangePointPosterior& post) const {
  Pair best;
  int lo = 0;
  for (int hi = 1; hi < ledger_.count(); ++hi) {
    if (ledger_.untestable(hi)) continue;
    double mass = 0;
    for (int k = lo + 1; k <= hi; ++k) mass += post.probability[static_cast<std::size_t>(k)];
    if (mass > best.mass) best = {lo, hi, mass};
    lo = hi;
  }
  return best;
}

std::pair<int, int> PosteriorSearch::credible_range(const stats::ChangePointPosterior& post) const {
  const int count = ledger_.count();
  int lo = 0;
  int hi = count - 1;
  const double tail = options_.alpha / 2;
  for (int k = 0; k < count; ++k) {
    if (post.cumulative[static_cast<std::size_t>(k)] <= tail) lo = k;
  }
  for (int k = count - 1; k >= 0; --k) {
    if (post.cumulative[static_cast<std::size_t>(k)] >= 1 - tail) hi = k;
  }
  return {lo, std::max(hi, lo + 1)};
}

std::optional<int> PosteriorSearch::pick_version(const stats::ChangePointPosterior& post) const {
  std::optional<int> best;
  double best_split = 2;
  for (int v = 0; v < ledger_.count(); ++v) {
    if (ledger_.untestable(v) || ledger_.have(v) >= options_.max_repetitions) continue;
    const double p = post.cumulative[static_cast<std::size_t>(v)];
    const double split = std::abs(p - 0.5);
    if (split < best_split - 1e-12) {
      best_split = split;
      best = v;
    }
  }
  if (best && best_split > 0.5 - 1e-6) return std::nullopt;  // nothing left to learn
  return best;
}

std::pair<int, int> PosteriorSearch::bracket(const stats::ChangePointPosterior& post) const {
  const int count = ledger_.count();
  int lo = 0;
  int hi = count - 1;
  for (int v = 0; v < count; ++v) {
    if (ledger_.have(v) == 0) continue;
    if (post.cumulative[static_cast<std::size_t>(v)] < 0.5) lo = std::max(lo, v);
  }
  for (int v = count - 1; v >= 0; --v) {
    if (ledger_.have(v) == 0) continue;
    if (post.cumulative[static_cast<std::size_t>(v)] >= 0.5) hi = std::min(hi, v);
  }
  return {lo, hi};
}

// In a seeded order, so a load spike or drift hits both. While the step itself is in doubt (the
// no-step model above kGoNoStep, where the endpoints' go rule stands), the ends are the first
// and the last version instead: the levels far from the step tell whether there is one, where
// the bracket's ends, near it, mix up its size with its place.
void PosteriorSearch::measure_round(int v, const stats::ChangePointPosterior& post) {
  const auto [lo, hi] =
      post.no_step > kGoNoStep ? std::pair{0, ledger_.count() - 1} : bracket(post);
  std::vector<int> block = {v};
  for (int end : (round_ % 2 == 0) ? std::vector<int>{lo, hi} : std::vector<int>{hi, lo}) {
    if (end != v && ledger_.have(end) < options_.max_repetitions) {
      block.push_back(end);
      break;
    }
  }
  ++round_;
  ledger_.shuffle(block);
  const long id = ledger_.next_block();
  for (int x : block) {
    try {
      ledger_.fetch(x, ledger_.have(x) + 1, id);
    } catch (const Untestable& e) {
      if (x != v) continue;  // an end measured before: leave it to the next block
      ledger_.mark_untestable(v);
      result_.skipped.push_back(v);
      result_.steps.push_back({Step::Kind::kMidpoint, v, Verdict::kInconclusive, std::nullopt,
                               Outcome::kUntestable, 0, e.what(), -1});
    }
  }
}

void PosteriorSearch::record_midpoint(int v, const stats::ChangePointPosterior& post) {
  if (ledger_.untestable(v) || ledger_.have(v) == 0) return;
  const double bad = post.cumulative[static_cast<std::size_t>(v)];
  const auto [lo, hi] = bracket(post);
  const double alpha = stats::look_alpha(sampling_plan(options_));
  const auto against = [&](int end) {
    if (end == v || ledger_.have(end) < 2 || ledger_.have(v) < 2) return Verdict::kInconclusive;
    return stats::compare(ledger_.values(end, 0, ledger_.have(end)),
                          ledger_.values(v, 0, ledger_.have(v)), alpha, options_.margin)
        .verdict;
  };
  const Outcome outcome = bad >= 1 - options_.alpha ? Outcome::kBad
                          : bad <= options_.alpha   ? Outcome::kGood
                                                    : Outcome::kUndecided;
  result_.steps.push_back(
      {Step::Kind::kMidpoint, v, against(lo), against(hi), outcome, ledger_.have(v), "", bad});
  spdlog::info("bisect: {} is {} (P(bad) = {:.3f}, {} runs)", ledger_.name(v), to_string(outcome),
               bad, ledger_.have(v));
}

void PosteriorSearch::record_candidates(const stats::ChangePointPosterior& post) {
  std::vector<Candidate> all;
  for (int k = 1; k < ledger_.count(); ++k) {
    all.push_back({k, post.probability[static_cast<std::size_t>(k)]});
  }
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return a.probability > b.probability;
  });
  if (static_cast<int>(all.size()) > kTopCandidates) all.resize(kTopCandidates);
  result_.candidates = std::move(all);
  result_.no_step_probability = post.no_step;
}

}  // namespace culprit::bisect
