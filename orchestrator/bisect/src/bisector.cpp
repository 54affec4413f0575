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

#include "culprit/common/lookup.hpp"
#include "culprit/errors.hpp"
#include "culprit/stats/change_point.hpp"
#include "culprit/stats/mann_whitney.hpp"
#include "culprit/stats/sequential.hpp"
#include "culprit/stats/summary.hpp"

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

constexpr int kTopCandidates = 5;
constexpr int kConfirmations = 2;       // confirmations of one pair before ending inconclusive
constexpr int kDriftWindow = 3;         // runs either side in time that estimate a run's drift
constexpr int kFirstPosteriorLook = 3;  // endpoint runs each before the posterior may decide
// Posterior mass of an adjacent pair at which its confirmation starts: the pair's runs made
// from then on are fresh for it (they did not choose it) and serve the posterior too.
constexpr double kLockMass = 0.6;
// The endpoints' go rule (posterior_goes): the no-step model's most, and the two-sided level of
// the paired CI that must lie above 0.
constexpr double kGoNoStep = 0.2;
constexpr double kGoLevel = 0.2;
// The posterior a locked pair must hold for its looks and to be found: 1 - alpha / this.
constexpr double kHoldDivisor = 10;
// Fresh runs per side between the confirmation's looks: small blocks stop a clear pair early,
// and the calibrated boundary makes extra looks cheap (they share most of their runs).
constexpr int kConfirmBlock = 3;
// Runs per side up to which the confirmation's looks use exact critical ranks, so that its
// calibrated boundary holds for caps above the 50 x 50 of stats' default (beyond it, the looks
// fall back to alpha / K each). The boundary's simulation grows with its square: ~1 s at 80.
constexpr long kExactConfirmRuns = 80;

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

class Bisection {
 public:
  Bisection(const std::vector<std::string>& versions, Measurer& measurer, const Options& options)
      : measurer_(measurer),
        options_(options),
        runs_(versions.size()),
        untestable_(versions.size(), false),
        blocks_(versions.size()),
        rng_(options.seed),
        confirmation_(make_confirmation_plan(options)) {
    result_.versions = versions;
    result_.noise.max_repetitions = options.max_repetitions;
  }

  Result run() {
    const int last = count() - 1;
    if (!confirm_endpoints(0, last)) return finish();
    search_began_ = block_clock_;
    std::vector<std::pair<int, int>> refuted;  // pairs whose confirmation failed
    int previous = -1;
    while (true) {
      const stats::ChangePointPosterior post = posterior();
      record_candidates(post);
      update_noise(post);
      if (post.no_step >= 1 - options_.alpha) {
        if (previous >= 0) record_midpoint(previous, post);
        return no_step_found(post);
      }
      const auto [a, b, mass] = best_pair(post);
      const bool spent =
          std::count(refuted.begin(), refuted.end(), std::pair{a, b}) >= kConfirmations;
      if (spent && mass >= 1 - options_.alpha) {
        if (previous >= 0) record_midpoint(previous, post);
        if (endpoints_not_regressed()) return finish();
        result_.status = Status::kInconclusive;
        set_range(a, b);
        result_.message = fmt::format(
            "the posterior holds {} .. {} with probability {:.3f}, but its confirmation on "
            "fresh runs was not regressed",
            name(a), name(b), mass);
        return finish();
      }
      if (!spent && mass >= kLockMass) {
        if (previous >= 0) record_midpoint(previous, post);
        previous = -1;
        auto [it, first] = locks_.try_emplace(std::pair{a, b});
        if (first) {
          it->second.lo = a;
          it->second.hi = b;
          it->second.after = block_clock_;
          it->second.plan = lock_plan(++confirmations_);
          spdlog::info(
              "bisect: {} .. {} holds {:.3f} of the posterior: confirming it on fresh runs",
              name(a), name(b), mass);
        }
        const LockState state = look_at_lock(it->second, mass);
        if (state == LockState::kFound) {
          find_other_steps(a, b);
          return finish();
        }
        if (state == LockState::kRefuted) {
          refuted.emplace_back(a, b);
          locks_.erase(std::pair{a, b});  // a second confirmation starts on new fresh runs
          continue;
        }
        if (total_runs() >= budget()) return out_of_budget(post);
        block_of({a, b});
        continue;
      }
      const std::optional<int> next = pick_version(post);
      if (next && total_runs() >= budget()) {
        if (previous >= 0) record_midpoint(previous, post);
        return out_of_budget(post);
      }
      if (!next) {
        if (previous >= 0) record_midpoint(previous, post);
        return not_located(post, fmt::format("every version that could still split the range has "
                                             "{} runs (max_repetitions)",
                                             options_.max_repetitions));
      }
      if (previous >= 0 && previous != *next) record_midpoint(previous, post);
      previous = *next;
      measure_round(*next, post);
    }
  }

 private:
  int count() const { return static_cast<int>(result_.versions.size()); }
  const std::string& name(int index) const {
    return result_.versions[static_cast<std::size_t>(index)];
  }
  int total_runs() const {
    int total = 0;
    for (const auto& r : runs_) total += static_cast<int>(r.size());
    return total;
  }
  // Runs a bisection may spend: the cap for each of the log2(versions) halvings, the endpoints
  // and the confirmation.
  int budget() const {
    return options_.max_repetitions * (static_cast<int>(std::ceil(std::log2(count()))) + 3);
  }
  int have(int index) const {
    return static_cast<int>(runs_[static_cast<std::size_t>(index)].size());
  }

  // Ensures `n` runs of `index`; new runs are stamped in the order they arrive and with the
  // interleaved block they belong to.
  void fetch(int index, int n, long block) {
    if (have(index) >= n) return;
    std::vector<double> got = measurer_.samples(index, n);
    if (static_cast<int>(got.size()) < n) {
      throw RunError("bisect: the measurer returned " + std::to_string(got.size()) +
                     " runs of version " + name(index) + " where " + std::to_string(n) +
                     " were asked for");
    }
    auto& runs = runs_[static_cast<std::size_t>(index)];
    auto& blocks = blocks_[static_cast<std::size_t>(index)];
    // Exactly n: a store may hand back more stored runs than asked for; taking them in the
    // same order as the first time makes a resumed bisection walk the same path.
    for (std::size_t i = runs.size(); i < static_cast<std::size_t>(n); ++i) {
      runs.push_back({got[i], clock_++});
      blocks.push_back(block);
    }
  }

  std::vector<double> values(int index, int from, int n) const {
    std::vector<double> out;
    const auto& runs = runs_[static_cast<std::size_t>(index)];
    for (int i = from; i < from + n && i < static_cast<int>(runs.size()); ++i) {
      out.push_back(runs[static_cast<std::size_t>(i)].value);
    }
    return out;
  }

  // One balanced block: a run of each version, in a seeded order.
  void block_of(std::vector<int> versions) {
    const long block = ++block_clock_;
    std::shuffle(versions.begin(), versions.end(), rng_);
    for (int x : versions) fetch(x, have(x) + 1, block);
  }

  // The first `n` runs of both versions (the endpoints), made in balanced blocks of one run
  // each. After every block from kFirstPosteriorLook runs on, the posterior over both decides
  // whether the search may start (stepped_): then fewer than `n` runs are returned.
  PairSamples pair_at(int baseline, int candidate, int n) {
    while (have(baseline) < n && have(candidate) < n) {
      block_of({baseline, candidate});
      if (std::min(have(baseline), have(candidate)) >= kFirstPosteriorLook &&
          posterior_goes(baseline, candidate)) {
        stepped_ = true;
        const int m = std::min(have(baseline), have(candidate));
        return {values(baseline, 0, m), values(candidate, 0, m)};
      }
    }
    fetch(baseline, n, ++block_clock_);
    fetch(candidate, n, block_clock_);
    return {values(baseline, 0, n), values(candidate, 0, n)};
  }

  // The endpoints' pairs so far, judged paired at `level`: above 0 and reaching the margin.
  bool paired_step(int baseline, int candidate, double level) const {
    const int n = std::min(have(baseline), have(candidate));
    const stats::Comparison c = stats::compare_paired(
        values(baseline, 0, n), values(candidate, 0, n), {level, options_.margin});
    return c.has_ci && c.relative_lo > 0 && c.relative_hi >= options_.margin;
  }

  // The sequential rule on the endpoints: the no-step model holds at most kGoNoStep and the
  // step it sees is of practical size. A liberal rule: a false start costs runs, never a
  // culprit (only a confirmation on fresh runs finds one, and the search ends "not
  // reproduced" when every run denies the step).
  bool posterior_goes(int baseline, int candidate) const {
    const stats::ChangePointPosterior post = posterior();
    if (post.no_step > kGoNoStep) return false;
    // And the paired CI above 0 and not wholly below the margin: load common to a pair cancels
    // in its ratio, not in the posterior over two versions, so a load spike alone cannot start
    // the search.
    return paired_step(baseline, candidate, kGoLevel);
  }

  stats::ChangePointPosterior posterior() const {
    stats::ChangePointOptions o;
    o.drift_window = kDriftWindow;
    o.drift_min_runs = options_.repetitions;
    return stats::change_point_posterior(runs_, o);
  }

  // The search ends "no step" when every run so far says so (the no-step model holds 1 - alpha).
  Result no_step_found(const stats::ChangePointPosterior& post) {
    set_range(0, count() - 1);
    result_.shift = endpoints_on_all_runs();
    result_.status = Status::kNotReproduced;
    result_.message = fmt::format(
        "the posterior over all {} runs gives the no-step model {:.3f} (endpoints shift {:+.1f} "
        "%): no regression to bisect",
        total_runs(), post.no_step, 100 * result_.shift.relative);
    return finish();
  }

  // The endpoints judged on every run of theirs (unpaired: the search added unpaired runs).
  stats::Comparison endpoints_on_all_runs() const {
    const int last = count() - 1;
    return stats::compare(values(0, 0, have(0)), values(last, 0, have(last)),
                          stats::look_alpha(sampling_plan(options_)), options_.margin);
  }

  // A search that could not name a pair: the endpoints are judged again on runs made since the
  // search began (the runs that started it are left out: they were chosen for leaning to, or
  // reaching, a regressed verdict; so is an endpoint false alarm), at least the confirmation's
  // first look of each, made now when missing. Not regressed there: no regression reproduced.
  // Regressed: the step is real but not located (inconclusive, said by the caller).
  bool endpoints_not_regressed() {
    const int last = count() - 1;
    const stats::SamplingPlan plan = confirmation_plan();
    const auto fresh = [&](int v) { return fresh_of(v, search_began_); };
    const auto fewest = [&] {
      return static_cast<int>(std::min(fresh(0).size(), fresh(last).size()));
    };
    // Through the one adaptive loop on the first n fresh runs each, up to the cap.
    const auto at = [&](int n) {
      while (fewest() < n) block_of({0, last});
      auto lo = fresh(0);
      auto hi = fresh(last);
      lo.resize(static_cast<std::size_t>(n));
      hi.resize(static_cast<std::size_t>(n));
      return PairSamples{std::move(lo), std::move(hi)};
    };
    const stats::Comparison again = stats::sample_adaptively(at, plan).comparison;
    // The step is not ruled out when the fresh runs say regressed and the posterior over every
    // run no longer doubts the step (the no-step model at most kGoNoStep, the endpoints' go
    // rule), or they still lean to a step of practical size that the posterior holds with
    // 1 - alpha. (A fresh "regressed" alone, an alpha / 2 event without a step, ended 1 of 500
    // A/A bisections inconclusive with the no-step model at 0.28.)
    const double no_step = posterior().no_step;
    if ((again.verdict == Verdict::kRegressed && no_step <= kGoNoStep) ||
        (again.verdict == Verdict::kInconclusive && again.relative >= options_.margin &&
         no_step <= options_.alpha)) {
      return false;
    }
    set_range(0, last);
    result_.shift = again;
    result_.status = Status::kNotReproduced;
    result_.message = fmt::format(
        "the search found no pair holding the step, the endpoints on {} and {} runs made since "
        "it began are {} ({:+.1f} %), and the posterior over all {} runs gives the no-step model "
        "{:.3f}: no regression reproduced",
        again.n_baseline, again.n_candidate, stats::verdict_name(again.verdict),
        100 * again.relative, total_runs(), no_step);
    return true;
  }

  void set_range(int lo, int hi) {
    result_.last_good = lo;
    result_.first_bad = hi;
  }

  // The endpoints through the adaptive loop; false when bisection stops there.
  bool confirm_endpoints(int good, int bad) {
    stats::SamplingPlan plan = sampling_plan(options_);
    plan.paired = true;  // pair_at makes the endpoints' runs in balanced blocks of both
    PairJudgement judged;
    try {
      judged = stats::sample_adaptively(
          [&](int n) {
            PairSamples s = pair_at(good, bad, n);
            // Say early when the noise makes the margin unreachable within the cap.
            const int second_look = options_.repetitions + stats::block_size(plan);
            if (!stepped_ && n == second_look && n < options_.max_repetitions) {
              check_noise(s, stats::compare_paired(s.baseline, s.candidate,
                                                   {stats::look_alpha(plan), options_.margin}));
            }
            return s;
          },
          plan,
          [&](const stats::SamplingDecision& d) {
            // The posterior saw a step before the verdict did: bisect.
            return stepped_ && d.comparison.verdict != Verdict::kRegressed;
          });
    } catch (const Untestable& e) {
      const int which = have(good) < options_.repetitions ? good : bad;
      throw RunError("bisect: endpoint version " + name(which) + " cannot be measured (" +
                     e.what() + "); choose a good and a bad version that build and run");
    } catch (const NoiseStop&) {
      set_range(good, bad);
      result_.shift = stats::compare(values(good, 0, have(good)), values(bad, 0, have(bad)),
                                     stats::look_alpha(plan), options_.margin);
      result_.steps.push_back({Step::Kind::kEndpoints, bad, result_.shift.verdict, std::nullopt,
                               Outcome::kUndecided, have(bad), "", -1});
      result_.status = Status::kInconclusive;
      result_.message = result_.noise.advice;
      return false;
    }
    const stats::Comparison& judgement = judged.comparison;
    set_range(good, bad);
    result_.shift = judgement;
    if (stepped_) {
      result_.steps.push_back({Step::Kind::kEndpoints, bad, judgement.verdict, std::nullopt,
                               Outcome::kBad, have(bad), "", 1 - posterior().no_step});
      return true;
    }
    const Outcome outcome = judgement.verdict == Verdict::kRegressed      ? Outcome::kBad
                            : judgement.verdict == Verdict::kInconclusive ? Outcome::kUndecided
                                                                          : Outcome::kGood;
    result_.steps.push_back(
        {Step::Kind::kEndpoints, bad, judgement.verdict, std::nullopt, outcome, judged.n, "", -1});
    if (judgement.verdict == Verdict::kRegressed) return true;
    return endpoints_not_regressed(good, bad, judged);
  }

  // The endpoints' verdict at the cap is not `regressed`: true when the search goes on all the
  // same (a step more likely than not), else false with the status and message set.
  bool endpoints_not_regressed(int good, int bad, const PairJudgement& judged) {
    const stats::Comparison& judgement = judged.comparison;
    // At the cap, a step more likely than not goes to the search: its runs inform both levels
    // (every run of every version does), and the search ends not reproduced when they deny it.
    if (judgement.verdict == Verdict::kInconclusive && paired_step(good, bad, options_.alpha) &&
        posterior().no_step <= 0.5) {
      stepped_ = true;
      result_.steps.back().outcome = Outcome::kBad;
      return true;
    }
    const stats::ChangePointPosterior post = posterior();
    if (judgement.verdict == Verdict::kInconclusive && judgement.relative >= options_.margin &&
        post.no_step <= 0.5) {
      // The endpoints lean to a step of practical size that neither the verdict nor the
      // posterior establishes at the cap: say so, with what would decide it.
      result_.status = Status::kInconclusive;
      result_.noise.cv = post.sigma;
      result_.message = fmt::format(
          "the endpoints {} and {} stayed inconclusive at {} runs each (shift {:+.1f} %, "
          "run-to-run CV {:.1f} %, no-step model {:.3f}): raise stats.max_repetitions or use a "
          "quieter machine",
          name(good), name(bad), judged.n, 100 * judgement.relative, 100 * post.sigma,
          post.no_step);
      return false;
    }
    // Otherwise no regression is established: not reproduced (which does not claim "the same";
    // the CI in the report says how sure).
    result_.status = Status::kNotReproduced;
    result_.message = fmt::format(
        "version {} is {} against {} at {} runs each (shift {:+.1f} %, margin {:.1f} %, no-step "
        "model {:.3f}): no regression to bisect",
        name(bad), stats::verdict_name(judgement.verdict), name(good), judged.n,
        100 * judgement.relative, 100 * options_.margin, post.no_step);
    return false;
  }

  struct NoiseStop {};

  // Fills result_.noise from an early look; limited when even max_repetitions runs per version
  // could not show the step (or, for a step below it, the margin).
  void check_noise(const PairSamples& s, const stats::Comparison& first_look) {
    // The spread that matters is within a block: the robust SD of the pairs' log ratios,
    // over sqrt(2) for one run (load common to a block cancels).
    std::vector<double> ratios;
    for (std::size_t i = 0; i < s.baseline.size(); ++i) {
      ratios.push_back(std::log(s.candidate[i] / s.baseline[i]));
    }
    const double centre = stats::median(ratios);
    for (double& r : ratios) r = std::abs(r - centre);
    const double cv = std::max(1.4826 * stats::median(ratios) / std::numbers::sqrt2, 1e-6);
    const double look = stats::look_alpha(sampling_plan(options_));
    NoiseCheck& noise = result_.noise;
    noise.cv = cv;
    noise.mde_at_cap = stats::minimum_detectable_step(cv, options_.max_repetitions, look);
    const double target = first_look.relative;
    const double z = stats::normal_quantile(1 - look / 2) + stats::normal_quantile(0.8);
    const double root = z * cv / std::log1p(target) / std::sqrt(3 / std::numbers::pi);
    noise.runs_needed = static_cast<int>(std::ceil(2 * root * root));
    // Only a step of practical size is worth the check (below the margin the cap ends in
    // "not reproduced" anyway); stop only when the cap's MDE is clearly out of reach (twice
    // the estimate: the CV from a second look is itself uncertain).
    if (first_look.verdict != Verdict::kInconclusive || target < options_.margin) return;
    if (noise.mde_at_cap <= 2 * target || posterior().no_step > 0.5) return;
    noise.limited = true;
    noise.advice = fmt::format(
        "run-to-run CV is {:.1f} % (measured over {} runs): with at most {} runs per version the "
        "smallest detectable step is {:.1f} %, far above the {:.1f} % the endpoints show; about "
        "{} runs per version would be needed. Raise stats.max_repetitions, run fewer ranks per "
        "core, bind "
        "ranks to cores, or use a quieter machine",
        100 * cv, have(0) + have(count() - 1), options_.max_repetitions, 100 * noise.mde_at_cap,
        100 * target, noise.runs_needed);
    throw NoiseStop{};
  }

  // The noise figures from every run so far (the posterior's scale).
  void update_noise(const stats::ChangePointPosterior& post) {
    const double look = stats::look_alpha(sampling_plan(options_));
    result_.noise.cv = post.sigma;
    result_.noise.mde_at_cap =
        stats::minimum_detectable_step(post.sigma, options_.max_repetitions, look);
  }

  struct Pair {
    int lo = 0;
    int hi = 0;
    double mass = 0;
  };
  // The adjacent testable pair (untestable versions between them allowed) holding most mass.
  Pair best_pair(const stats::ChangePointPosterior& post) const {
    Pair best;
    int lo = 0;
    for (int hi = 1; hi < count(); ++hi) {
      if (untestable_[static_cast<std::size_t>(hi)]) continue;
      double mass = 0;
      for (int k = lo + 1; k <= hi; ++k) mass += post.probability[static_cast<std::size_t>(k)];
      if (mass > best.mass) best = {lo, hi, mass};
      lo = hi;
    }
    return best;
  }

  // The smallest range of versions holding 1 - alpha of the step's mass.
  std::pair<int, int> credible_range(const stats::ChangePointPosterior& post) const {
    int lo = 0;
    int hi = count() - 1;
    const double tail = options_.alpha / 2;
    for (int k = 0; k < count(); ++k) {
      if (post.cumulative[static_cast<std::size_t>(k)] <= tail) lo = k;
    }
    for (int k = count() - 1; k >= 0; --k) {
      if (post.cumulative[static_cast<std::size_t>(k)] >= 1 - tail) hi = k;
    }
    return {lo, std::max(hi, lo + 1)};
  }

  // The testable version below its cap whose "bad" probability is nearest one half: one run
  // of it is worth most (the information of a run is largest where the mass is split evenly).
  std::optional<int> pick_version(const stats::ChangePointPosterior& post) const {
    std::optional<int> best;
    double best_split = 2;
    for (int v = 0; v < count(); ++v) {
      if (untestable_[static_cast<std::size_t>(v)] || have(v) >= options_.max_repetitions) continue;
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

  // The measured testable versions either side of the posterior median.
  std::pair<int, int> bracket(const stats::ChangePointPosterior& post) const {
    int lo = 0;
    int hi = count() - 1;
    for (int v = 0; v < count(); ++v) {
      if (have(v) == 0) continue;
      if (post.cumulative[static_cast<std::size_t>(v)] < 0.5) lo = std::max(lo, v);
    }
    for (int v = count() - 1; v >= 0; --v) {
      if (have(v) == 0) continue;
      if (post.cumulative[static_cast<std::size_t>(v)] >= 0.5) hi = std::min(hi, v);
    }
    return {lo, hi};
  }

  // One block: a run of `v` and a fresh run of one end of the bracket (alternating), in a
  // seeded order, so a load spike or drift hits both. While the step itself is in doubt (the
  // no-step model above kGoNoStep, where the endpoints' go rule stands), the ends are the first
  // and the last version instead: the levels far from the step tell whether there is one, where
  // the bracket's ends, near it, mix up its size with its place.
  void measure_round(int v, const stats::ChangePointPosterior& post) {
    const auto [lo, hi] = post.no_step > kGoNoStep ? std::pair{0, count() - 1} : bracket(post);
    std::vector<int> block = {v};
    for (int end : (round_ % 2 == 0) ? std::vector<int>{lo, hi} : std::vector<int>{hi, lo}) {
      if (end != v && have(end) < options_.max_repetitions) {
        block.push_back(end);
        break;
      }
    }
    ++round_;
    std::shuffle(block.begin(), block.end(), rng_);
    const long id = ++block_clock_;
    for (int x : block) {
      try {
        fetch(x, have(x) + 1, id);
      } catch (const Untestable& e) {
        if (x != v) continue;  // an end measured before: leave it to the next block
        untestable_[static_cast<std::size_t>(v)] = true;
        runs_[static_cast<std::size_t>(v)].clear();
        blocks_[static_cast<std::size_t>(v)].clear();
        result_.skipped.push_back(v);
        result_.steps.push_back({Step::Kind::kMidpoint, v, Verdict::kInconclusive, std::nullopt,
                                 Outcome::kUntestable, 0, e.what(), -1});
      }
    }
  }

  // What a version the posterior chose turned out to be, with its probability of being bad.
  void record_midpoint(int v, const stats::ChangePointPosterior& post) {
    if (untestable_[static_cast<std::size_t>(v)] || have(v) == 0) return;
    const double bad = post.cumulative[static_cast<std::size_t>(v)];
    const auto [lo, hi] = bracket(post);
    const double alpha = stats::look_alpha(sampling_plan(options_));
    const auto against = [&](int end) {
      if (end == v || have(end) < 2 || have(v) < 2) return Verdict::kInconclusive;
      return stats::compare(values(end, 0, have(end)), values(v, 0, have(v)), alpha,
                            options_.margin)
          .verdict;
    };
    const Outcome outcome = bad >= 1 - options_.alpha ? Outcome::kBad
                            : bad <= options_.alpha   ? Outcome::kGood
                                                      : Outcome::kUndecided;
    result_.steps.push_back(
        {Step::Kind::kMidpoint, v, against(lo), against(hi), outcome, have(v), "", bad});
    spdlog::info("bisect: {} is {} (P(bad) = {:.3f}, {} runs)", name(v), to_string(outcome), bad,
                 have(v));
  }

  void record_candidates(const stats::ChangePointPosterior& post) {
    std::vector<Candidate> all;
    for (int k = 1; k < count(); ++k) {
      all.push_back({k, post.probability[static_cast<std::size_t>(k)]});
    }
    std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
      return a.probability > b.probability;
    });
    if (static_cast<int>(all.size()) > kTopCandidates) all.resize(kTopCandidates);
    result_.candidates = std::move(all);
    result_.no_step_probability = post.no_step;
  }

  // The confirmation's plan: unpaired Hodges–Lehmann / Mann–Whitney on fresh runs, a look
  // every kConfirmBlock runs per side up to max_repetitions, every look at the level of the
  // calibrated group-sequential boundary whose one-sided error over all looks is alpha / 2
  // (looks too small for a CI spend none of it). A failed search's endpoints are re-judged on
  // it; each locked pair gets a share of it (lock_plan).
  static stats::SamplingPlan make_confirmation_plan(const Options& options) {
    stats::SamplingPlan plan = sampling_plan(options);
    plan.block = std::min(kConfirmBlock, options.max_repetitions);
    plan.repetitions = plan.block;
    plan.max_repetitions = options.max_repetitions;
    const long exact = std::min<long>(options.max_repetitions, kExactConfirmRuns);
    plan.exact_max_pairs = std::max(plan.exact_max_pairs, exact * exact);
    plan.look_level = stats::boundary_look_level(plan, plan.alpha / 2);
    return plan;
  }
  const stats::SamplingPlan& confirmation_plan() const { return confirmation_; }

  // The plan of a bisection's j-th confirmation: the one-sided error alpha / 2 spent over the
  // confirmations, 6 / (pi^2 j^2) of it to the j-th (the series sums to 1), so the chance that
  // any pair without the step is confirmed stays within alpha / 2 however many pairs are tried.
  stats::SamplingPlan lock_plan(int j) const {
    stats::SamplingPlan plan = confirmation_;
    const double share = 6 / (std::numbers::pi * std::numbers::pi * j * j);
    plan.look_level = stats::boundary_look_level(plan, share * plan.alpha / 2);
    return plan;
  }

  Result out_of_budget(const stats::ChangePointPosterior& post) {
    return not_located(
        post, fmt::format("spent {} runs (max_repetitions x (log2(versions) + 3)) without one pair "
                          "holding the step with probability {:.2f} and confirmed on fresh runs",
                          total_runs(), 1 - options_.alpha));
  }

  // The search ended without a pair: not reproduced when the endpoints' fresh runs say so,
  // else inconclusive with the credible range.
  Result not_located(const stats::ChangePointPosterior& post, const std::string& why) {
    if (endpoints_not_regressed()) return finish();
    result_.status = Status::kInconclusive;
    const auto [lo, hi] = credible_range(post);
    set_range(lo, hi);
    result_.message = fmt::format(
        "{}; the first bad version lies in {} .. {} with probability {:.2f} (run-to-run CV "
        "{:.1f} %)",
        why, name(lo), name(hi), 1 - options_.alpha, 100 * post.sigma);
    return finish();
  }

  // The pair under confirmation: chosen by the posterior from the runs made up to block
  // `after`; its runs made later are fresh (they did not choose it).
  struct Lock {
    int lo = 0;
    int hi = 0;
    long after = 0;
    int next_look = 0;  // fresh runs per side at the next planned look (0: the first)
    int looks = 0;
    bool passed = false;  // a planned look found the pair regressed
    int judged_n = 0;     // fresh runs per side at the last look
    stats::Comparison last;
    stats::SamplingPlan plan;  // its looks and their level (lock_plan)
  };
  enum class LockState { kRunning, kFound, kRefuted };

  std::vector<double> fresh_of(int v, long after) const {
    std::vector<double> out;
    const auto& runs = runs_[static_cast<std::size_t>(v)];
    const auto& blocks = blocks_[static_cast<std::size_t>(v)];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (blocks[i] > after) out.push_back(runs[i].value);
    }
    return out;
  }

  // Judges the locked pair at a planned look when its fresh runs reach it; found when a look
  // said regressed and the posterior holds the pair with 1 - alpha / 10; refuted when the looks are
  // spent (the cap) without a regressed one.
  LockState look_at_lock(Lock& lock, double mass) {
    const stats::SamplingPlan& plan = lock.plan;
    if (lock.next_look == 0) lock.next_look = plan.repetitions;
    std::vector<double> lo = fresh_of(lock.lo, lock.after);
    std::vector<double> hi = fresh_of(lock.hi, lock.after);
    const int n = static_cast<int>(std::min(lo.size(), hi.size()));
    bool exhausted = false;
    // Each planned look judges exactly the first `next_look` fresh runs of each side, however
    // late it is taken (the pair may not be locked when its runs reach the look): a look's
    // statistic never depends on when the posterior happened to favour the pair.
    // Looks are taken only while the posterior holds the pair with 1 - alpha / 10, so that only
    // such pairs risk a false confirmation; a look not taken then is taken later on the same runs.
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
                   name(lock.lo), name(lock.hi), mass, lock.next_look,
                   stats::verdict_name(lock.last.verdict));
      lock.judged_n = lock.next_look;
      lock.next_look = std::min(lock.next_look + stats::block_size(plan), plan.max_repetitions);
      if (lock.judged_n == lock.next_look) break;
    }
    if (lock.passed && mass >= 1 - hold_error()) {
      record_verify(lock, lock.judged_n, mass, true);
      return LockState::kFound;
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
      return LockState::kRefuted;
    }
    return LockState::kRunning;
  }

  // A confirmation look's options: its boundary's level, and exact ranks as far as the
  // boundary was computed with them.
  static stats::CompareOptions judged_at(const stats::SamplingPlan& plan) {
    stats::CompareOptions o;
    o.alpha = stats::look_alpha(plan);
    o.margin = plan.margin;
    o.exact_max_pairs = plan.exact_max_pairs;
    return o;
  }

  // 1 - the posterior mass a locked pair must hold for a look and for "found".
  double hold_error() const { return options_.alpha / kHoldDivisor; }

  void record_verify(const Lock& lock, int n, double mass, bool confirmed) {
    set_range(lock.lo, lock.hi);
    result_.shift = lock.last;
    result_.steps.push_back({Step::Kind::kVerify, lock.hi, lock.last.verdict, std::nullopt,
                             confirmed ? Outcome::kBad : Outcome::kUndecided, n, "", mass});
    if (!confirmed) {
      spdlog::info("bisect: {} .. {} held {:.3f} of the posterior but was {} on fresh runs",
                   name(lock.lo), name(lock.hi), mass, stats::verdict_name(lock.last.verdict));
      return;
    }
    result_.untestable_candidates.clear();
    for (int i = lock.lo + 1; i < lock.hi; ++i) {
      if (untestable_[static_cast<std::size_t>(i)]) result_.untestable_candidates.push_back(i);
    }
    result_.status = Status::kFound;
    result_.message = fmt::format("first bad version {}, last good {} (posterior {:.3f})",
                                  name(lock.hi), name(lock.lo), mass);
    if (!result_.untestable_candidates.empty()) {
      result_.message += "; untestable versions in between could be the culprit too";
    }
    record_candidates(posterior());
  }

  // A second step inside the good side [0, lo] or the bad side [hi, last]: a one-step posterior
  // on that segment alone; reported when it holds a step of at least the margin.
  void find_other_steps(int lo, int hi) {
    const auto check = [&](int first, int last) {
      if (last - first < 1 || have(first) == 0 || have(last) == 0) return;
      std::vector<std::vector<stats::TimedRun>> segment(runs_.begin() + first,
                                                        runs_.begin() + last + 1);
      stats::ChangePointOptions o;
      o.drift_window = kDriftWindow;
      o.drift_min_runs = options_.repetitions;
      const auto post = stats::change_point_posterior(segment, o);
      if (1 - post.no_step < 1 - options_.alpha || post.relative_shift < options_.margin) return;
      const int at = first + post.most_likely;
      const auto pooled = [&](int a, int b) {
        std::vector<double> out;
        for (int v = a; v <= b; ++v) {
          for (const auto& r : runs_[static_cast<std::size_t>(v)]) out.push_back(r.value);
        }
        return out.empty() ? 0.0 : stats::median(out);
      };
      const bool left = last == lo;
      const double good = left ? pooled(0, at - 1) : pooled(0, lo);
      const double middle = left ? pooled(at, lo) : pooled(hi, at - 1);
      const double bad = left ? pooled(hi, count() - 1) : pooled(at, count() - 1);
      result_.multiple_steps.push_back({at, middle - good, bad - middle, 1 - post.no_step});
    };
    check(0, lo);
    check(hi, count() - 1);
    if (!result_.multiple_steps.empty()) {
      result_.message += "; the regression came in more than one step (followed the larger)";
    }
  }

  Result finish() {
    result_.runs = 0;
    for (const auto& r : runs_) result_.runs += static_cast<int>(r.size());
    return std::move(result_);
  }

  Measurer& measurer_;
  Options options_;
  std::vector<std::vector<stats::TimedRun>> runs_;
  std::vector<bool> untestable_;
  std::vector<std::vector<long>> blocks_;  // per version, the interleaved block of each run
  std::mt19937_64 rng_;
  stats::SamplingPlan confirmation_;
  int confirmations_ = 0;  // pairs locked so far
  long clock_ = 0;
  long block_clock_ = 0;
  std::map<std::pair<int, int>, Lock> locks_;  // per pair: its confirmation so far
  bool stepped_ = false;   // the endpoints' posterior saw a step before their verdict did
  long search_began_ = 0;  // the block after which the search's runs were made
  int round_ = 0;
  Result result_;
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
