#include "endpoints.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bisection_rules.hpp"
#include "culprit/errors.hpp"

namespace culprit::bisect {
namespace {

constexpr int kFirstPosteriorLook = 3;  // endpoint runs each before the posterior may decide
// The two-sided level of the paired CI that must lie above 0 for the go rule.
constexpr double kGoLevel = 0.2;

}  // namespace

// The first `n` runs of both versions (the endpoints), made in balanced blocks of one run
// each. After every block from kFirstPosteriorLook runs on, the posterior over both decides
// whether the search may start (stepped_): then fewer than `n` runs are returned.
PairSamples EndpointJudge::pair_at(int baseline, int candidate, int n) {
  while (ledger_.have(baseline) < n && ledger_.have(candidate) < n) {
    ledger_.block_of({baseline, candidate});
    if (std::min(ledger_.have(baseline), ledger_.have(candidate)) >= kFirstPosteriorLook &&
        posterior_goes(baseline, candidate)) {
      stepped_ = true;
      const int m = std::min(ledger_.have(baseline), ledger_.have(candidate));
      return {ledger_.values(baseline, 0, m), ledger_.values(candidate, 0, m)};
    }
  }
  const long block = ledger_.next_block();
  ledger_.fetch(baseline, n, block);
  ledger_.fetch(candidate, n, block);
  return {ledger_.values(baseline, 0, n), ledger_.values(candidate, 0, n)};
}

// The endpoints' pairs so far, judged paired at `level`: above 0 and reaching the margin.
bool EndpointJudge::paired_step(int baseline, int candidate, double level) const {
  const int n = std::min(ledger_.have(baseline), ledger_.have(candidate));
  const stats::Comparison c = stats::compare_paired(
      ledger_.values(baseline, 0, n), ledger_.values(candidate, 0, n), {level, options_.margin});
  return c.has_ci && c.relative_lo > 0 && c.relative_hi >= options_.margin;
}

// The sequential rule on the endpoints: the no-step model holds at most kGoNoStep and the
// step it sees is of practical size. A liberal rule: a false start costs runs, never a
// culprit (only a confirmation on fresh runs finds one, and the search ends "not
// reproduced" when every run denies the step).
bool EndpointJudge::posterior_goes(int baseline, int candidate) const {
  const stats::ChangePointPosterior post = search_.posterior();
  if (post.no_step > kGoNoStep) return false;
  // And the paired CI above 0 and not wholly below the margin: load common to a pair cancels
  // in its ratio, not in the posterior over two versions, so a load spike alone cannot start
  // the search.
  return paired_step(baseline, candidate, kGoLevel);
}

void EndpointJudge::stop_on_noise(int good, int bad, const stats::SamplingPlan& plan) {
  set_range(result_, good, bad);
  result_.shift = stats::compare(ledger_.values(good, 0, ledger_.have(good)),
                                 ledger_.values(bad, 0, ledger_.have(bad)), stats::look_alpha(plan),
                                 options_.margin);
  result_.steps.push_back({Step::Kind::kEndpoints, bad, result_.shift.verdict, std::nullopt,
                           Outcome::kUndecided, ledger_.have(bad), "", -1});
  result_.status = Status::kInconclusive;
  result_.message = result_.noise.advice;
}

bool EndpointJudge::confirm(int good, int bad) {
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
            noise_.check(s,
                         stats::compare_paired(s.baseline, s.candidate,
                                               {stats::look_alpha(plan), options_.margin}),
                         search_.posterior().no_step);
          }
          return s;
        },
        plan,
        [&](const stats::SamplingDecision& d) {
          // The posterior saw a step before the verdict did: bisect.
          return stepped_ && d.comparison.verdict != Verdict::kRegressed;
        });
  } catch (const Untestable& e) {
    const int which = ledger_.have(good) < options_.repetitions ? good : bad;
    throw RunError("bisect: endpoint version " + ledger_.name(which) + " cannot be measured (" +
                   e.what() + "); choose a good and a bad version that build and run");
  } catch (const NoiseStop&) {
    stop_on_noise(good, bad, plan);
    return false;
  }
  const stats::Comparison& judgement = judged.comparison;
  set_range(result_, good, bad);
  result_.shift = judgement;
  if (stepped_) {
    result_.steps.push_back({Step::Kind::kEndpoints, bad, judgement.verdict, std::nullopt,
                             Outcome::kBad, ledger_.have(bad), "",
                             1 - search_.posterior().no_step});
    return true;
  }
  const Outcome outcome = judgement.verdict == Verdict::kRegressed      ? Outcome::kBad
                          : judgement.verdict == Verdict::kInconclusive ? Outcome::kUndecided
                                                                        : Outcome::kGood;
  result_.steps.push_back(
      {Step::Kind::kEndpoints, bad, judgement.verdict, std::nullopt, outcome, judged.n, "", -1});
  if (judgement.verdict == Verdict::kRegressed) return true;
  return go_at_cap(good, bad, judged);
}

// The endpoints' verdict at the cap is not `regressed`: true when the search goes on all the
// same (a step more likely than not), else false with the status and message set.
bool EndpointJudge::go_at_cap(int good, int bad, const PairJudgement& judged) {
  const stats::Comparison& judgement = judged.comparison;
  // At the cap, a step more likely than not goes to the search: its runs inform both levels
  // (every run of every version does), and the search ends not reproduced when they deny it.
  if (judgement.verdict == Verdict::kInconclusive && paired_step(good, bad, options_.alpha) &&
      search_.posterior().no_step <= 0.5) {
    stepped_ = true;
    result_.steps.back().outcome = Outcome::kBad;
    return true;
  }
  const stats::ChangePointPosterior post = search_.posterior();
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
        ledger_.name(good), ledger_.name(bad), judged.n, 100 * judgement.relative, 100 * post.sigma,
        post.no_step);
    return false;
  }
  // Otherwise no regression is established: not reproduced (which does not claim "the same";
  // the CI in the report says how sure).
  result_.status = Status::kNotReproduced;
  result_.message = fmt::format(
      "version {} is {} against {} at {} runs each (shift {:+.1f} %, margin {:.1f} %, no-step "
      "model {:.3f}): no regression to bisect",
      ledger_.name(bad), stats::verdict_name(judgement.verdict), ledger_.name(good), judged.n,
      100 * judgement.relative, 100 * options_.margin, post.no_step);
  return false;
}

}  // namespace culprit::bisect
