#include "culprit/bisect/bisector.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "bisection_rules.hpp"
#include "confirmation.hpp"
#include "culprit/common/lookup.hpp"
#include "culprit/errors.hpp"
#include "culprit/stats/change_point.hpp"
#include "culprit/stats/sequential.hpp"
#include "culprit/stats/summary.hpp"
#include "endpoints.hpp"
#include "noise_guard.hpp"
#include "posterior_search.hpp"
#include "run_ledger.hpp"

namespace culprit::bisect {

namespace {

constexpr LookupEntry<Status, std::string_view> kStatusNames[] = {
    {Status::kFound, "found"},
    {Status::kNotReproduced, "not_reproduced"},
    {Status::kInconclusive, "inconclusive"}};
constexpr LookupEntry<Outcome, std::string_view> kOutcomeNames[] = {
    {Outcome::kGood, "good"},
    {Outcome::kBad, "bad"},
    {Outcome::kBetween, "between"},
    {Outcome::kUntestable, "untestable"},
    {Outcome::kUndecided, "undecided"}};
constexpr LookupEntry<Step::Kind, std::string_view> kStepKindNames[] = {
    {Step::Kind::kEndpoints, "endpoints"},
    {Step::Kind::kVerify, "verify"},
    {Step::Kind::kRecheck, "recheck"},
    {Step::Kind::kMidpoint, "midpoint"}};

}  // namespace

std::string_view to_string(Status status) {
  return lookup(kStatusNames, status, std::string_view("inconclusive"));
}

std::string_view to_string(Outcome outcome) {
  return lookup(kOutcomeNames, outcome, std::string_view("undecided"));
}

std::string_view to_string(Step::Kind kind) {
  return lookup(kStepKindNames, kind, std::string_view("midpoint"));
}

stats::SamplingPlan sampling_plan(const Options& options) {
  return {options.repetitions, options.max_repetitions, options.block, options.alpha,
          options.margin};
}

namespace {

constexpr int kConfirmations = 2;  // confirmations of one pair before ending inconclusive
// Posterior mass of an adjacent pair at which its confirmation starts: the pair's runs made
// from then on are fresh for it (they did not choose it) and serve the posterior too.
constexpr double kLockMass = 0.6;

void check_options(const Options& options) {
  if (options.repetitions < 1 || options.max_repetitions < options.repetitions) {
    throw UsageError("bisect: repetitions (" + std::to_string(options.repetitions) +
                     ") must be at least 1 and at most max_repetitions (" +
                     std::to_string(options.max_repetitions) + ")");
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    throw UsageError("bisect: alpha must lie in (0, 1)");
  }
}

// One bisection: the endpoints, then the posterior search with its confirmations until a pair
// is found, the step is denied, or the runs are spent. Its parts each own one responsibility:
// the run ledger (RunLedger), the posterior search (PosteriorSearch), the confirmation on fresh
// runs (Confirmation), the noise guard (NoiseGuard) and the endpoints (EndpointJudge).
class Bisection {
 public:
  Bisection(const std::vector<std::string>& versions, Measurer& measurer, const Options& options)
      : options_(options),
        ledger_(versions, measurer, options.seed),
        search_(ledger_, options_, result_),
        noise_(ledger_, options_, result_.noise),
        confirmation_(ledger_, search_, options_, result_),
        endpoints_(ledger_, search_, noise_, options_, result_) {
    result_.versions = versions;
    result_.noise.max_repetitions = options.max_repetitions;
  }

  Result run() {
    if (!endpoints_.confirm(0, ledger_.count() - 1)) return finish();
    search_began_ = ledger_.block_clock();
    std::vector<std::pair<int, int>> refuted;  // pairs whose confirmation failed
    int previous = -1;
    const auto close_midpoint = [&](const stats::ChangePointPosterior& post) {
      if (previous >= 0) search_.record_midpoint(previous, post);
    };
    while (true) {
      const stats::ChangePointPosterior post = search_.posterior();
      search_.record_candidates(post);
      noise_.update(post);
      if (post.no_step >= 1 - options_.alpha) {
        close_midpoint(post);
        return no_step_found(post);
      }
      const auto [a, b, mass] = search_.best_pair(post);
      const bool spent =
          std::count(refuted.begin(), refuted.end(), std::pair{a, b}) >= kConfirmations;
      if (spent && mass >= 1 - options_.alpha) {
        close_midpoint(post);
        return held_but_refuted(a, b, mass);
      }
      if (!spent && mass >= kLockMass) {
        close_midpoint(post);
        previous = -1;
        const Confirmation::State state = confirmation_.look(a, b, mass);
        if (state == Confirmation::State::kFound) {
          find_other_steps(a, b);
          return finish();
        }
        if (state == Confirmation::State::kRefuted) {
          refuted.emplace_back(a, b);  // a second confirmation starts on new fresh runs
          continue;
        }
        if (ledger_.total_runs() >= budget()) return out_of_budget(post);
        ledger_.block_of({a, b});
        continue;
      }
      const std::optional<int> next = search_.pick_version(post);
      if (next && ledger_.total_runs() >= budget()) {
        close_midpoint(post);
        return out_of_budget(post);
      }
      if (!next) {
        close_midpoint(post);
        return not_located(post, fmt::format("every version that could still split the range has "
                                             "{} runs (max_repetitions)",
                                             options_.max_repetitions));
      }
      if (previous >= 0 && previous != *next) search_.record_midpoint(previous, post);
      previous = *next;
      search_.measure_round(*next, post);
    }
  }

 private:
  const std::string& name(int index) const { return ledger_.name(index); }
  int count() const { return ledger_.count(); }

  // Runs a bisection may spend: the cap for each of the log2(versions) halvings, the endpoints
  // and the confirmation.
  int budget() const {
    return options_.max_repetitions * (static_cast<int>(std::ceil(std::log2(count()))) + 3);
  }

  // The posterior holds a pair whose confirmations failed kConfirmations times.
  Result held_but_refuted(int a, int b, double mass) {
    if (confirmation_.endpoints_not_regressed(search_began_)) return finish();
    result_.status = Status::kInconclusive;
    set_range(result_, a, b);
    result_.message = fmt::format(
        "the posterior holds {} .. {} with probability {:.3f}, but its confirmation on "
        "fresh runs was not regressed",
        name(a), name(b), mass);
    return finish();
  }

  // The search ends "no step" when every run so far says so (the no-step model holds 1 - alpha).
  Result no_step_found(const stats::ChangePointPosterior& post) {
    set_range(result_, 0, count() - 1);
    result_.shift = endpoints_on_all_runs();
    result_.status = Status::kNotReproduced;
    result_.message = fmt::format(
        "the posterior over all {} runs gives the no-step model {:.3f} (endpoints shift {:+.1f} "
        "%): no regression to bisect",
        ledger_.total_runs(), post.no_step, 100 * result_.shift.relative);
    return finish();
  }

  // The endpoints judged on every run of theirs (unpaired: the search added unpaired runs).
  stats::Comparison endpoints_on_all_runs() const {
    const int last = count() - 1;
    return stats::compare(ledger_.values(0, 0, ledger_.have(0)),
                          ledger_.values(last, 0, ledger_.have(last)),
                          stats::look_alpha(sampling_plan(options_)), options_.margin);
  }

  Result out_of_budget(const stats::ChangePointPosterior& post) {
    return not_located(
        post, fmt::format("spent {} runs (max_repetitions x (log2(versions) + 3)) without one pair "
                          "holding the step with probability {:.2f} and confirmed on fresh runs",
                          ledger_.total_runs(), 1 - options_.alpha));
  }

  // The search ended without a pair: not reproduced when the endpoints' fresh runs say so,
  // else inconclusive with the credible range.
  Result not_located(const stats::ChangePointPosterior& post, const std::string& why) {
    if (confirmation_.endpoints_not_regressed(search_began_)) return finish();
    result_.status = Status::kInconclusive;
    const auto [lo, hi] = search_.credible_range(post);
    set_range(result_, lo, hi);
    result_.message = fmt::format(
        "{}; the first bad version lies in {} .. {} with probability {:.2f} (run-to-run CV "
        "{:.1f} %)",
        why, name(lo), name(hi), 1 - options_.alpha, 100 * post.sigma);
    return finish();
  }

  // The median of every run of versions a..b.
  double pooled(int a, int b) const {
    std::vector<double> out;
    for (int v = a; v <= b; ++v) {
      for (const auto& r : ledger_.runs()[static_cast<std::size_t>(v)]) out.push_back(r.value);
    }
    return out.empty() ? 0.0 : stats::median(out);
  }

  // A second step inside the segment first..last (the good side [0, lo] or the bad side
  // [hi, last]): a one-step posterior on that segment alone; reported when it holds a step of
  // at least the margin.
  void other_step_in(int first, int last, int lo, int hi) {
    if (last - first < 1 || ledger_.have(first) == 0 || ledger_.have(last) == 0) return;
    const auto& runs = ledger_.runs();
    std::vector<std::vector<stats::TimedRun>> segment(runs.begin() + first,
                                                      runs.begin() + last + 1);
    stats::ChangePointOptions o;
    o.drift_window = kDriftWindow;
    o.drift_min_runs = options_.repetitions;
    const auto post = stats::change_point_posterior(segment, o);
    if (1 - post.no_step < 1 - options_.alpha || post.relative_shift < options_.margin) return;
    const int at = first + post.most_likely;
    const bool left = last == lo;
    const double good = left ? pooled(0, at - 1) : pooled(0, lo);
    const double middle = left ? pooled(at, lo) : pooled(hi, at - 1);
    const double bad = left ? pooled(hi, count() - 1) : pooled(at, count() - 1);
    result_.multiple_steps.push_back({at, middle - good, bad - middle, 1 - post.no_step});
  }

  void find_other_steps(int lo, int hi) {
    other_step_in(0, lo, lo, hi);
    other_step_in(hi, count() - 1, lo, hi);
    if (!result_.multiple_steps.empty()) {
      result_.message += "; the regression came in more than one step (followed the larger)";
    }
  }

  Result finish() {
    result_.runs = ledger_.total_runs();
    return std::move(result_);
  }

  Options options_;
  Result result_;
  RunLedger ledger_;
  PosteriorSearch search_;
  NoiseGuard noise_;
  Confirmation confirmation_;
  EndpointJudge endpoints_;
  long search_began_ = 0;  // the block after which the search's runs were made
};

}  // namespace

Result run_bisection(const std::vector<std::string>& versions, Measurer& measurer,
                     const Options& options) {
  if (versions.size() < 2) {
    throw UsageError("bisect: needs at least two versions (first good, last bad), got " +
                     std::to_string(versions.size()));
  }
  check_options(options);
  return Bisection(versions, measurer, options).run();
}

PairJudgement judge_pair(Measurer& measurer, int baseline, int candidate, const Options& options) {
  check_options(options);
  // Every look at the calibrated boundary of its looks, alpha / 2 to each side: the null of
  // "regressed" (no shift) and of "improved" mirror each other, and so do those of the
  // equivalence bounds (a shift of +-margin, where the shifted samples are exchangeable), so
  // each claim's error over all looks stays within alpha / 2 with more power than alpha / K.
  stats::SamplingPlan plan = sampling_plan(options);
  plan.look_level = stats::boundary_look_level(plan, options.alpha / 2);
  return stats::sample_adaptively(
      [&](int n) {
        measurer.prefetch({baseline, candidate}, n);
        auto base = measurer.samples(baseline, n);
        auto cand = measurer.samples(candidate, n);
        base.resize(static_cast<std::size_t>(n));
        cand.resize(static_cast<std::size_t>(n));
        return PairSamples{std::move(base), std::move(cand)};
      },
      plan);
}

}  // namespace culprit::bisect
