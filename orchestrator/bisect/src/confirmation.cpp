#include "confirmation.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "bisection_rules.hpp"
#include "culprit/stats/sequential.hpp"

namespace culprit::bisect {
namespace {

// The posterior a locked pair must hold for its looks and to be found: 1 - alpha / this.
constexpr double kHoldDivisor = 10;
// Fresh runs per side between the confirmation's looks: small blocks stop a clear pair early,
// and the calibrated boundary makes extra looks cheap (they share most of their runs).
constexpr int kConfirmBlock = 3;
// Runs per side up to which the confirmation's looks use exact critical ranks, so that its
// calibrated boundary holds for caps above the 50 x 50 of stats' default (beyond it, the looks
// fall back to alpha / K each). The boundary's simulation grows with its square: ~1 s at 80.
constexpr long kExactConfirmRuns = 80;

// A confirmation look's options: its boundary's level, and exact ranks as far as the boundary
// was computed with them.
stats::CompareOptions judged_at(const stats::SamplingPlan& plan) {
  stats::CompareOptions o;
  o.alpha = stats::look_alpha(plan);
  o.margin = plan.margin;
  o.exact_max_pairs = plan.exact_max_pairs;
  return o;
}

}  // namespace

Confirmation::Confirmation(RunLedger& ledger, PosteriorSearch& search, const Options& options,
                           Result& result)
    : ledger_(ledger),
      search_(search),
      options_(options),
      result_(result),
      plan_(make_plan(options)) {}

// Unpaired Hodges–Lehmann / Mann–Whitney on fresh runs, a look every kConfirmBlock runs per side
// up to max_repetitions, every look at the level of the calibrated group-sequential boundary
// whose one-sided error over all looks is alpha / 2 (looks too small for a CI spend none of
// it). A failed search's endpoints are re-judged on it; each locked pair gets a share of it
// (lock_plan).
stats::SamplingPlan Confirmation::make_plan(const Options& options) {
  stats::SamplingPlan plan = sampling_plan(options);
  plan.block = std::min(kConfirmBlock, options.max_repetitions);
  plan.repetitions = plan.block;
  plan.max_repetitions = options.max_repetitions;
  const long exact = std::min<long>(options.max_repetitions, kExactConfirmRuns);
  plan.exact_max_pairs = std::max(plan.exact_max_pairs, exact * exact);
  plan.look_level = stats::boundary_look_level(plan, plan.alpha / 2);
  return plan;
}

// The plan of a bisection's j-th confirmation: the one-sided error alpha / 2 spent over the
// confirmations, 6 / (pi^2 j^2) of it to the j-th (the series sums to 1), so the chance that
// any pair without the step is confirmed stays within alpha / 2 however many pairs are tried.
stats::SamplingPlan Confirmation::lock_plan(int j) const {
  stats::SamplingPlan plan = plan_;
  const double share = 6 / (std::numbers::pi * std::numbers::pi * j * j);
  plan.look_level = stats::boundary_look_level(plan, share * plan.alpha / 2);
  return plan;
}

double Confirmation::hold_error() const {
  return options_.alpha / kHoldDivisor;
}

Confirmation::State Confirmation::look(int lo, int hi, double mass) {
  auto [it, first] = locks_.try_emplace(std::pair{lo, hi});
  if (first) {
    it->second.lo = lo;
    it->second.hi = hi;
    it->second.after = ledger_.block_clock();
    it->second.plan = lock_plan(++confirmations_);
    spdlog::info("bisect: {} .. {} holds {:.3f} of the posterior: confirming it on fresh runs",
                 ledger_.name(lo), ledger_.name(hi), mass);
  }
  const State state = look_at_lock(it->second, mass);
  if (state == State::kRefuted) locks_.erase(it);
  return state;
}

// Each planned look judges exactly the first `next_look` fresh runs of each side, however late
// it is taken (the pair may not be locked when its runs reach the look): a look's statistic never
// depends on when the posterior happened to favour the pair. Looks are taken only while the
// posterior holds the pair with 1 - alpha / 10, so that only such pairs risk a false
// confirmation; a look not taken then is taken later on the same runs. True when the looks are
// spent (the cap) without a regressed one.
bool Confirmation::take_looks(Lock& lock, const std::vector<double>& lo,
                              const std::vector<double>& hi, double mass) {
  const stats::SamplingPlan& plan = lock.plan;
  const int n = static_cast<int>(std::min(lo.size(), hi.size()));
  bool exhausted = false;
  const bool held = mass >= 1 - hold_error();
  while (held && !lock.passed && !exhausted && n >= lock.next_look) {
    const auto first = [&](const std::vector<double>& v) {
      return std::vector<double>(v.begin(), v.begin() + lock.next_look);
    };
    lock.last = stats::compare(first(lo), first(hi), judged_at(plan));
    ++lock.looks;
    lock.passed = lock.last.verdict == Verdict::kRegressed;
    exhausted = !lock.passed && lock.next_look >= plan.max_repetitions;
    spdlog::info("bisect: {} .. {} (posterior {:.3f}) on its first {} fresh runs each: {}",
                 ledger_.name(lock.lo), ledger_.name(lock.hi), mass, lock.next_look,
                 stats::verdict_name(lock.last.verdict));
    lock.judged_n = lock.next_look;
    lock.next_look = std::min(lock.next_look + stats::block_size(plan), plan.max_repetitions);
    if (lock.judged_n == lock.next_look) break;
  }
  return exhausted;
}

// Found when a look said regressed and the posterior holds the pair with 1 - alpha / 10;
// refuted when the looks are spent (the cap) without a regressed one.
Confirmation::State Confirmation::look_at_lock(Lock& lock, double mass) {
  const stats::SamplingPlan& plan = lock.plan;
  if (lock.next_look == 0) lock.next_look = plan.repetitions;
  std::vector<double> lo = ledger_.fresh_of(lock.lo, lock.after);
  std::vector<double> hi = ledger_.fresh_of(lock.hi, lock.after);
  const int n = static_cast<int>(std::min(lo.size(), hi.size()));
  bool exhausted = take_looks(lock, lo, hi, mass);
  if (lock.passed && mass >= 1 - hold_error()) {
    record_verify(lock, lock.judged_n, mass, true);
    return State::kFound;
  }
  if (!lock.passed && n >= plan.max_repetitions && !exhausted) {
    // The cap reached while the posterior did not hold the pair: refuted, judged for the
    // report only (a pass here confirms nothing).
    exhausted = true;
    lo.resize(static_cast<std::size_t>(plan.max_repetitions));
    hi.resize(static_cast<std::size_t>(plan.max_repetitions));
    lock.last = stats::compare(lo, hi, judged_at(plan));
    lock.judged_n = plan.max_repetitions;
  }
  if (exhausted) {
    record_verify(lock, lock.judged_n, mass, false);
    return State::kRefuted;
  }
  return State::kRunning;
}

void Confirmation::record_verify(const Lock& lock, int n, double mass, bool confirmed) {
  set_range(result_, lock.lo, lock.hi);
  result_.shift = lock.last;
  result_.steps.push_back({Step::Kind::kVerify, lock.hi, lock.last.verdict, std::nullopt,
                           confirmed ? Outcome::kBad : Outcome::kUndecided, n, "", mass});
  if (!confirmed) {
    spdlog::info("bisect: {} .. {} held {:.3f} of the posterior but was {} on fresh runs",
                 ledger_.name(lock.lo), ledger_.name(lock.hi), mass,
                 stats::verdict_name(lock.last.verdict));
    return;
  }
  result_.untestable_candidates.clear();
  for (int i = lock.lo + 1; i < lock.hi; ++i) {
    if (ledger_.untestable(i)) result_.untestable_candidates.push_back(i);
  }
  result_.status = Status::kFound;
  result_.message = fmt::format("first bad version {}, last good {} (posterior {:.3f})",
                                ledger_.name(lock.hi), ledger_.name(lock.lo), mass);
  if (!result_.untestable_candidates.empty()) {
    result_.message += "; untestable versions in between could be the culprit too";
  }
  search_.record_candidates(search_.posterior());
}

// The runs that started the search are left out: they were chosen for leaning to, or reaching,
// a regressed verdict; so is an endpoint false alarm. Not regressed on the fresh runs: no
// regression reproduced. Regressed: the step is real but not located.
bool Confirmation::endpoints_not_regressed(long search_began) {
  const int last = ledger_.count() - 1;
  const auto fresh = [&](int v) { return ledger_.fresh_of(v, search_began); };
  const auto fewest = [&] {
    return static_cast<int>(std::min(fresh(0).size(), fresh(last).size()));
  };
  // Through the one adaptive loop on the first n fresh runs each, up to the cap.
  const auto at = [&](int n) {
    while (fewest() < n) ledger_.block_of({0, last});
    auto lo = fresh(0);
    auto hi = fresh(last);
    lo.resize(static_cast<std::size_t>(n));
    hi.resize(static_cast<std::size_t>(n));
    return PairSamples{std::move(lo), std::move(hi)};
  };
  const stats::Comparison again = stats::sample_adaptively(at, plan_).comparison;
  // The step is not ruled out when the fresh runs say regressed and the posterior over every
  // run no longer doubts the step (the no-step model at most kGoNoStep, the endpoints' go
  // rule), or they still lean to a step of practical size that the posterior holds with
  // 1 - alpha. (A fresh "regressed" alone, an alpha / 2 event without a step, ended 1 of 500
  // A/A bisections inconclusive with the no-step model at 0.28.)
  const double no_step = search_.posterior().no_step;
  if ((again.verdict == Verdict::kRegressed && no_step <= kGoNoStep) ||
      (again.verdict == Verdict::kInconclusive && again.relative >= options_.margin &&
       no_step <= options_.alpha)) {
    return false;
  }
  set_range(result_, 0, last);
  result_.shift = again;
  result_.status = Status::kNotReproduced;
  result_.message = fmt::format(
      "the search found no pair holding the step, the endpoints on {} and {} runs made since "
      "it began are {} ({:+.1f} %), and the posterior over all {} runs gives the no-step model "
      "{:.3f}: no regression reproduced",
      again.n_baseline, again.n_candidate, stats::verdict_name(again.verdict), 100 * again.relative,
      ledger_.total_runs(), no_step);
  return true;
}

}  // namespace culprit::bisect
