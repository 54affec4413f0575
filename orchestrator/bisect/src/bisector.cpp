#include "culprit/bisect/bisector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "culprit/errors.hpp"
#include "culprit/stats/sampling.hpp"

namespace culprit::bisect {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::kFound:
      return "found";
    case Status::kNotReproduced:
      return "not_reproduced";
    case Status::kInconclusive:
      break;
  }
  return "inconclusive";
}

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kGood:
      return "good";
    case Outcome::kBad:
      return "bad";
    case Outcome::kBetween:
      return "between";
    case Outcome::kUntestable:
      return "untestable";
    case Outcome::kUndecided:
      break;
  }
  return "undecided";
}

std::string_view to_string(Step::Kind kind) {
  switch (kind) {
    case Step::Kind::kEndpoints:
      return "endpoints";
    case Step::Kind::kVerify:
      return "verify";
    case Step::Kind::kRecheck:
      return "recheck";
    case Step::Kind::kMidpoint:
      break;
  }
  return "midpoint";
}

namespace {

// Decides a midpoint from its verdicts against the last good (lo) and the first bad (hi)
// version; nullopt asks for more runs. One significant side decides when the other does not
// contradict it: being faster than the first bad version (or the same as the last good one)
// puts the regression after the midpoint. Equivalence alone is rarely reached with few runs,
// so requiring it would spend most of the runs on good midpoints.
std::optional<Outcome> classify(const stats::Comparison& vs_lo, const stats::Comparison& vs_hi,
                                bool at_cap) {
  const Verdict lo = vs_lo.verdict;
  const Verdict hi = vs_hi.verdict;
  if (lo == Verdict::kRegressed && hi == Verdict::kImproved) return Outcome::kBetween;
  if (lo == Verdict::kEquivalent && hi == Verdict::kEquivalent) {
    // Both levels lie within the margin of the midpoint (a step of about twice the margin).
    if (!at_cap) return std::nullopt;
    return std::abs(vs_lo.shift) <= std::abs(vs_hi.shift) ? Outcome::kGood : Outcome::kBad;
  }
  const bool good =
      hi == Verdict::kImproved || lo == Verdict::kEquivalent || lo == Verdict::kImproved;
  const bool bad =
      lo == Verdict::kRegressed || hi == Verdict::kEquivalent || hi == Verdict::kRegressed;
  if (good && !bad) return Outcome::kGood;
  if (bad && !good) return Outcome::kBad;
  if (!at_cap) return std::nullopt;
  return Outcome::kUndecided;
}

stats::SamplingPlan sampling_plan(const Options& options) {
  return {options.repetitions, options.max_repetitions, options.block, options.alpha,
          options.margin};
}

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
        samples_(versions.size()),
        untestable_(versions.size(), false) {
    result_.versions = versions;
    schedule_ = look_schedule(options);
    alpha_per_look_ = stats::look_alpha(sampling_plan(options));
  }

  Result run() {
    const int last = static_cast<int>(result_.versions.size()) - 1;
    if (!confirm_endpoints(0, last)) return finish();
    brackets_.push_back({0, last});
    while (true) {
      const auto [lo, hi] = brackets_.back();
      const std::optional<int> mid = pick_midpoint(lo, hi);
      if (!mid) {
        if (verify(lo, hi) || !backtrack()) return finish();
        continue;
      }
      const Outcome outcome = judge_midpoint(*mid, lo, hi);
      if (outcome == Outcome::kGood) narrow(*mid, hi, *mid);
      if (outcome == Outcome::kBad) narrow(lo, *mid, *mid);
      if (outcome == Outcome::kBetween) {
        const MultipleStep& step = result_.multiple_steps.back();
        // Keep going towards the larger of the two steps.
        if (step.shift_from_good_ms >= step.shift_to_bad_ms) {
          narrow(lo, *mid, *mid);
        } else {
          narrow(*mid, hi, *mid);
        }
      }
      if (outcome == Outcome::kUndecided) {
        // Undecided between two ends at different levels is a genuinely unclear version;
        // between two ends at the same level, an earlier decision was wrong.
        if (!bracket_holds(lo, hi) && backtrack()) continue;
        result_.status = Status::kInconclusive;
        set_range(lo, hi);
        result_.message = "version " + name(*mid) + " stayed inconclusive at " +
                          std::to_string(options_.max_repetitions) +
                          " runs; the first bad version lies in the remaining range";
        return finish();
      }
    }
  }

 private:
  const std::string& name(int index) const {
    return result_.versions[static_cast<std::size_t>(index)];
  }

  const std::vector<double>& fetch(int index, int n) {
    auto& have = samples_[static_cast<std::size_t>(index)];
    if (static_cast<int>(have.size()) < n) {
      std::vector<double> got = measurer_.samples(index, n);
      if (static_cast<int>(got.size()) < n) {
        throw RunError("bisect: the measurer returned " + std::to_string(got.size()) +
                       " runs of version " + name(index) + " where " + std::to_string(n) +
                       " were asked for");
      }
      have = std::move(got);
    }
    return have;
  }

  stats::Comparison compare(int baseline, int candidate, int n) {
    const auto missing = [&](int i) {
      return static_cast<int>(samples_[static_cast<std::size_t>(i)].size()) < n;
    };
    if (missing(baseline) && missing(candidate)) measurer_.prefetch({baseline, candidate}, n);
    const auto& base = fetch(baseline, n);
    const auto& cand = fetch(candidate, n);
    return stats::compare(base, cand, alpha_per_look_, options_.margin);
  }

  void narrow(int lo, int hi, int decided) {
    brackets_.push_back({lo, hi});
    decided_.push_back(decided);
  }

  // Undoes the last narrowing after its ends turned out not to differ, and has the version
  // that narrowed it judged again with more runs. False when there is nothing left to undo.
  bool backtrack() {
    while (backtracks_left_ > 0 && brackets_.size() > 1) {
      --backtracks_left_;
      brackets_.pop_back();
      const int suspect = decided_.back();
      decided_.pop_back();
      const int have = static_cast<int>(samples_[static_cast<std::size_t>(suspect)].size());
      if (have >= options_.max_repetitions) continue;  // cannot learn more about it: undo more
      min_n_[suspect] = have + 1;
      spdlog::info("bisect: the range {}..{} does not hold a regression; judging {} again",
                   name(brackets_.back().first), name(brackets_.back().second), name(suspect));
      return true;
    }
    return false;
  }

  // Whether hi is still measurably slower than lo (the current range holds a regression).
  bool bracket_holds(int lo, int hi) {
    stats::Comparison judgement;
    int n = 0;
    for (int looked : schedule_) {
      n = looked;
      judgement = compare(lo, hi, n);
      if (judgement.verdict != Verdict::kInconclusive) break;
    }
    const bool holds = judgement.verdict == Verdict::kRegressed;
    result_.steps.push_back({Step::Kind::kRecheck, hi, judgement.verdict, std::nullopt,
                             holds ? Outcome::kBad : Outcome::kUndecided, n, ""});
    return holds;
  }

  void set_range(int lo, int hi) {
    result_.last_good = lo;
    result_.first_bad = hi;
  }

  // Measures both endpoints until their comparison is decided; false when bisection stops.
  bool confirm_endpoints(int good, int bad) {
    stats::Comparison judgement;
    int n = 0;
    for (int looked : schedule_) {
      n = looked;
      try {
        judgement = compare(good, bad, n);
      } catch (const Untestable& e) {
        const int which = untestable_index(good, bad, n);
        throw RunError("bisect: endpoint version " + name(which) + " cannot be measured (" +
                       e.what() + "); choose a good and a bad version that build and run");
      }
      if (judgement.verdict != Verdict::kInconclusive) break;
    }
    set_range(good, bad);
    result_.shift = judgement;
    const Outcome outcome = judgement.verdict == Verdict::kRegressed      ? Outcome::kBad
                            : judgement.verdict == Verdict::kInconclusive ? Outcome::kUndecided
                                                                          : Outcome::kGood;
    result_.steps.push_back(
        {Step::Kind::kEndpoints, bad, judgement.verdict, std::nullopt, outcome, n, ""});
    if (judgement.verdict == Verdict::kRegressed) return true;
    // At the cap, an estimate below the margin is no regression of practical size: not
    // reproduced (which does not claim "the same"; the CI in the report says how sure).
    if (judgement.verdict == Verdict::kInconclusive && judgement.relative >= options_.margin) {
      result_.status = Status::kInconclusive;
      result_.message = "the endpoints " + name(good) + " and " + name(bad) +
                        " stayed inconclusive at " + std::to_string(n) + " runs each";
    } else {
      result_.status = Status::kNotReproduced;
      result_.message = fmt::format(
          "version {} is {} against {} at {} runs each (shift {:+.1f} %, margin {:.1f} %): no "
          "regression to bisect",
          name(bad), stats::verdict_name(judgement.verdict), name(good), n,
          100 * judgement.relative, 100 * options_.margin);
    }
    return false;
  }

  // Which of two versions threw Untestable: the one whose samples are still missing.
  int untestable_index(int a, int b, int n) const {
    return static_cast<int>(samples_[static_cast<std::size_t>(a)].size()) < n ? a : b;
  }

  // The testable version nearest the middle of (lo, hi), like git bisect after a skip.
  std::optional<int> pick_midpoint(int lo, int hi) const {
    std::optional<int> best;
    const double middle = 0.5 * (lo + hi);
    for (int i = lo + 1; i < hi; ++i) {
      if (untestable_[static_cast<std::size_t>(i)]) continue;
      if (!best || std::abs(i - middle) < std::abs(*best - middle)) best = i;
    }
    return best;
  }

  Outcome judge_midpoint(int mid, int lo, int hi) {
    const auto forced = min_n_.find(mid);
    const int min_n = forced == min_n_.end() ? 0 : forced->second;
    for (std::size_t look = 0; look < schedule_.size(); ++look) {
      const int n = schedule_[look];
      if (n < min_n && look + 1 < schedule_.size()) continue;
      try {
        fetch(mid, n);
      } catch (const Untestable& e) {
        untestable_[static_cast<std::size_t>(mid)] = true;
        result_.skipped.push_back(mid);
        result_.steps.push_back(
            {Step::Kind::kMidpoint, mid, Verdict::kInconclusive, std::nullopt, Outcome::kUntestable,
             static_cast<int>(samples_[static_cast<std::size_t>(mid)].size()), e.what()});
        return Outcome::kUntestable;
      }
      const stats::Comparison vs_lo = compare(lo, mid, n);
      const stats::Comparison vs_hi = compare(hi, mid, n);
      const bool at_cap = look + 1 == schedule_.size();
      const std::optional<Outcome> outcome = classify(vs_lo, vs_hi, at_cap);
      if (!outcome) continue;
      result_.steps.push_back(
          {Step::Kind::kMidpoint, mid, vs_lo.verdict, vs_hi.verdict, *outcome, n, ""});
      spdlog::info("bisect: {} is {} ({} against {}, {} against {}, {} runs)", name(mid),
                   to_string(*outcome), stats::verdict_name(vs_lo.verdict), name(lo),
                   stats::verdict_name(vs_hi.verdict), name(hi), n);
      if (*outcome == Outcome::kBetween) {
        result_.multiple_steps.push_back({mid, vs_lo.shift, -vs_hi.shift});
      }
      return *outcome;
    }
    return Outcome::kUndecided;  // unreachable: the last look always decides
  }

  // The final check: the first bad version against its tested predecessor.
  bool verify(int lo, int hi) {
    set_range(lo, hi);
    result_.candidates.clear();
    for (int i = lo + 1; i < hi; ++i) {
      if (untestable_[static_cast<std::size_t>(i)]) result_.candidates.push_back(i);
    }
    stats::Comparison judgement;
    int n = 0;
    for (int looked : schedule_) {
      n = looked;
      judgement = compare(lo, hi, n);
      if (judgement.verdict != Verdict::kInconclusive) break;
    }
    result_.shift = judgement;
    const bool confirmed = judgement.verdict == Verdict::kRegressed;
    result_.steps.push_back({Step::Kind::kVerify, hi, judgement.verdict, std::nullopt,
                             confirmed ? Outcome::kBad : Outcome::kUndecided, n, ""});
    if (confirmed) {
      result_.status = Status::kFound;
      result_.message = "first bad version " + name(hi) + ", last good " + name(lo);
      if (!result_.candidates.empty()) {
        result_.message += "; untestable versions in between could be the culprit too";
      }
      return true;
    }
    result_.status = Status::kInconclusive;
    result_.message = "the final check of " + name(hi) + " against " + name(lo) + " was " +
                      std::string(stats::verdict_name(judgement.verdict)) + " at " +
                      std::to_string(n) + " runs each, not regressed";
    return false;
  }

  Result finish() {
    result_.runs = 0;
    for (const auto& s : samples_) result_.runs += static_cast<int>(s.size());
    return std::move(result_);
  }

  Measurer& measurer_;
  std::vector<std::pair<int, int>> brackets_;  // (last good, first bad), narrowing
  std::vector<int> decided_;                   // the version that made each narrowing
  std::map<int, int> min_n_;                   // versions to judge again with more runs
  int backtracks_left_ = 4;
  Options options_;
  std::vector<int> schedule_;  // runs per version at each look
  double alpha_per_look_ = 0.05;
  std::vector<std::vector<double>> samples_;
  std::vector<bool> untestable_;
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

std::vector<int> look_schedule(const Options& options) {
  std::vector<int> schedule;
  const int block = stats::block_size(sampling_plan(options));
  for (int n = options.repetitions; n < options.max_repetitions; n += block) {
    schedule.push_back(n);
  }
  schedule.push_back(options.max_repetitions);
  return schedule;
}

PairJudgement judge_pair(Measurer& measurer, int baseline, int candidate, const Options& options) {
  check_options(options);
  const double alpha = stats::look_alpha(sampling_plan(options));
  PairJudgement judged;
  for (int n : look_schedule(options)) {
    const auto base = measurer.samples(baseline, n);
    const auto cand = measurer.samples(candidate, n);
    judged.n = n;
    judged.comparison = stats::compare(
        std::span<const double>(base.data(), static_cast<std::size_t>(n)),
        std::span<const double>(cand.data(), static_cast<std::size_t>(n)), alpha, options.margin);
    if (judged.comparison.verdict != Verdict::kInconclusive) break;
  }
  return judged;
}

}  // namespace culprit::bisect
