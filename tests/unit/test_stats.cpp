#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/stats/compare.hpp"
#include "culprit/stats/environment.hpp"
#include "culprit/stats/mann_whitney.hpp"
#include "culprit/stats/sampling.hpp"
#include "culprit/stats/sequential.hpp"
#include "culprit/stats/summary.hpp"

using namespace culprit::stats;

namespace {

// tests/data/stats/reference.txt, produced by make_reference.py (brute-force enumeration in
// Python, independent of this code); each record is "kind name | field | field ...".
struct ReferenceRecord {
  std::string kind;
  std::string name;
  std::vector<std::vector<std::string>> fields;  // whitespace-split fields after the name
};

std::vector<double> numbers(const std::vector<std::string>& words) {
  std::vector<double> out;
  for (const auto& w : words) out.push_back(std::stod(w));
  return out;
}

std::vector<ReferenceRecord> load_reference() {
  const auto path = std::filesystem::path(CULPRIT_TEST_DATA) / "stats" / "reference.txt";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path.string());
  std::vector<ReferenceRecord> records;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t bar; (bar = line.find('|', start)) != std::string::npos; start = bar + 1) {
      parts.push_back(line.substr(start, bar - start));
    }
    parts.push_back(line.substr(start));
    ReferenceRecord record;
    std::istringstream head(parts[0]);
    head >> record.kind >> record.name;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      std::istringstream words(parts[i]);
      std::vector<std::string> field;
      for (std::string w; words >> w;) field.push_back(w);
      record.fields.push_back(field);
    }
    records.push_back(record);
  }
  return records;
}

double relative_error(double actual, double expected) {
  return std::abs(actual - expected) / std::max(std::abs(expected), 1e-300);
}

std::vector<double> normal_sample(std::mt19937_64& rng, int n, double mean, double sd) {
  std::normal_distribution<double> dist(mean, sd);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (double& x : out) x = dist(rng);
  return out;
}

// n runs around each median (the baseline's drawn first, then the candidate's, from `rng`),
// compared at alpha 0.05 with a 2 % margin.
Comparison compare_normal_samples(std::mt19937_64& rng, int n, double baseline_ms,
                                  double candidate_ms, double sd) {
  const auto a = normal_sample(rng, n, baseline_ms, sd);
  const auto b = normal_sample(rng, n, candidate_ms, sd);
  return compare(a, b, 0.05, 0.02);
}

}  // namespace

TEST_CASE("summaries match the brute-force reference (median, quartiles, MAD, order CI)") {
  int checked = 0;
  for (const auto& r : load_reference()) {
    if (r.kind != "summary") continue;
    CAPTURE(r.name);
    const std::vector<double> x = numbers(r.fields[0]);
    const double confidence = std::stod(r.fields[1][0]);
    const std::vector<double> e = numbers(r.fields[2]);
    CAPTURE(confidence);
    const Summary s = summarize(x, confidence);
    CHECK(s.n == static_cast<int>(e[0]));
    CHECK(s.median == doctest::Approx(e[1]).epsilon(1e-12));
    CHECK(s.q1 == doctest::Approx(e[2]).epsilon(1e-12));
    CHECK(s.q3 == doctest::Approx(e[3]).epsilon(1e-12));
    CHECK(s.mad == doctest::Approx(e[4]).epsilon(1e-12));
    CHECK(s.has_ci == (e[5] == 1));
    CHECK(s.ci_lo == e[6]);
    CHECK(s.ci_hi == e[7]);
    CHECK(s.ci_level == doctest::Approx(e[8]).epsilon(1e-12));
    CHECK(s.iqr == doctest::Approx(e[3] - e[2]).epsilon(1e-12));
    CHECK(s.robust_cv.value() == doctest::Approx(1.4826 * e[4] / e[1]).epsilon(1e-12));
    ++checked;
  }
  CHECK(checked >= 12);
}

TEST_CASE("a median CI needs n >= 6 at 95 %") {
  CHECK(min_n_for_median_ci(0.95) == 6);
  CHECK(min_n_for_median_ci(0.90) == 5);
  const std::vector<double> five{1, 2, 3, 4, 5};
  CHECK_FALSE(summarize(five).has_ci);
  const std::vector<double> six{1, 2, 3, 4, 5, 6};
  CHECK(summarize(six).has_ci);
}

TEST_CASE("Mann–Whitney p and Hodges–Lehmann CI match the brute-force reference") {
  int exact = 0, normal = 0;
  for (const auto& r : load_reference()) {
    if (r.kind != "compare") continue;
    CAPTURE(r.name);
    const std::vector<double> a = numbers(r.fields[0]);
    const std::vector<double> b = numbers(r.fields[1]);
    const double alpha = std::stod(r.fields[2][0]);
    const std::string method = r.fields[3][0];
    const std::vector<double> e = numbers(r.fields[4]);
    const int m = static_cast<int>(a.size());
    const int n = static_cast<int>(b.size());

    double p = 0;
    int k = 0;
    CompareOptions options;
    options.alpha = alpha;
    if (method == "exact") {
      p = exact_p_value(a, b);
      k = hl_critical_rank_exact(m, n, alpha);
      options.exact_max_pairs = 1L << 40;
      ++exact;
    } else {
      p = normal_p_value(a, b);
      k = hl_critical_rank_normal(m, n, u_sigma_tie_corrected(a, b), alpha);
      options.exact_max_pairs = 0;
      ++normal;
    }
    CHECK(relative_error(p, e[0]) < 1e-9);
    CHECK(k == static_cast<int>(e[1]));
    const HodgesLehmann hl = hodges_lehmann(a, b, k);
    CHECK(hl.shift == e[2]);
    CHECK(hl.lo == e[3]);
    CHECK(hl.hi == e[4]);

    // The public entry point gives the same figures.
    const Comparison c = compare(a, b, options);
    CHECK(c.method == (method == "exact" ? Method::kExact : Method::kNormal));
    CHECK(relative_error(c.p_value, e[0]) < 1e-9);
    CHECK(c.has_ci == (k >= 1));
    CHECK(c.shift == e[2]);
    CHECK(c.shift_lo == e[3]);
    CHECK(c.shift_hi == e[4]);
    CHECK(c.relative == doctest::Approx(e[2] / median(a)).epsilon(1e-12));
    CHECK(c.relative_lo == doctest::Approx(e[3] / median(a)).epsilon(1e-12));
    CHECK(c.relative_hi == doctest::Approx(e[4] / median(a)).epsilon(1e-12));
  }
  CHECK(exact >= 14);
  CHECK(normal >= 2);
}

TEST_CASE("null distributions are proper and symmetric without ties") {
  const auto u = null_distribution_u_continuous(7, 4);
  REQUIRE(u.size() == 29);
  CHECK(std::accumulate(u.begin(), u.end(), 0.0) == doctest::Approx(1.0).epsilon(1e-12));
  for (std::size_t i = 0; i < u.size(); ++i) CHECK(u[i] == doctest::Approx(u[u.size() - 1 - i]));
  CHECK(u[0] == doctest::Approx(1.0 / 330));  // C(11, 4) = 330

  // With ties the distribution lives on half-integers of U and still sums to one; the
  // mirrored computation (larger sample first) agrees with the direct one.
  const std::vector<double> a{1, 1, 2, 3, 3, 3};
  const std::vector<double> b{1, 2, 2, 4};
  const auto forward = null_distribution_2u(a, b);
  const auto backward = null_distribution_2u(b, a);
  REQUIRE(forward.size() == backward.size());
  CHECK(std::accumulate(forward.begin(), forward.end(), 0.0) ==
        doctest::Approx(1.0).epsilon(1e-12));
  for (std::size_t v = 0; v < forward.size(); ++v) {
    CHECK(forward[v] == doctest::Approx(backward[forward.size() - 1 - v]));
  }
  CHECK(twice_u_statistic(a, b) + twice_u_statistic(b, a) == 2 * 6 * 4);
  CHECK(exact_p_value(a, b) == doctest::Approx(exact_p_value(b, a)));
}

TEST_CASE("normal approximation agrees with the exact test at moderate n") {
  std::mt19937_64 rng(7);
  for (double shift : {0.0, 1.0, 2.5}) {
    const auto a = normal_sample(rng, 30, 100, 3);
    const auto b = normal_sample(rng, 30, 100 + shift, 3);
    CAPTURE(shift);
    CHECK(std::abs(exact_p_value(a, b) - normal_p_value(a, b)) < 0.01);
    const int exact_k = hl_critical_rank_exact(30, 30, 0.05);
    const int normal_k = hl_critical_rank_normal(30, 30, u_sigma_tie_corrected(a, b), 0.05);
    CHECK(std::abs(exact_k - normal_k) <= 2);
  }
}

TEST_CASE("verdict rule with margin") {
  const double d = 0.02;
  CHECK(decide_verdict(0.18, 0.15, 0.21, d) == Verdict::kRegressed);
  CHECK(decide_verdict(-0.05, -0.07, -0.03, d) == Verdict::kImproved);
  CHECK(decide_verdict(0.001, -0.01, 0.015, d) == Verdict::kEquivalent);
  // Significant but below the margin, and inside it: equivalent, not regressed.
  CHECK(decide_verdict(0.005, 0.001, 0.01, d) == Verdict::kEquivalent);
  // Significant, estimate below the margin, CI reaching past it: inconclusive.
  CHECK(decide_verdict(0.015, 0.005, 0.03, d) == Verdict::kInconclusive);
  // Not significant and wide: "not significant" never means "the same".
  CHECK(decide_verdict(0.0, -0.1, 0.1, d) == Verdict::kInconclusive);
  CHECK(decide_verdict(0.02, 0.001, 0.04, d) == Verdict::kRegressed);  // estimate == margin
  CHECK(std::string(verdict_name(Verdict::kRegressed)) == "regressed");
  CHECK(std::string(verdict_name(Verdict::kImproved)) == "improved");
  CHECK(std::string(verdict_name(Verdict::kEquivalent)) == "equivalent");
  CHECK(std::string(verdict_name(Verdict::kInconclusive)) == "inconclusive");
}

TEST_CASE("compare: reference scenario 410 ms -> 485 ms regresses; same times are equivalent") {
  std::mt19937_64 rng(42);
  const Comparison c = compare_normal_samples(rng, 8, 410, 485, 4);
  CHECK(c.verdict == Verdict::kRegressed);
  CHECK(c.relative == doctest::Approx(75.0 / 410).epsilon(0.05));
  CHECK(c.relative_lo > 0.1);
  CHECK(c.p_value < 0.001);
  CHECK(c.method == Method::kExact);
  CHECK_FALSE(c.ties);

  const auto a2 = normal_sample(rng, 20, 410, 1);
  const auto b2 = normal_sample(rng, 20, 410, 1);
  CHECK(compare(a2, b2, 0.05, 0.02).verdict == Verdict::kEquivalent);

  const auto b3 = normal_sample(rng, 20, 390, 1);
  CHECK(compare(a2, b3, 0.05, 0.02).verdict == Verdict::kImproved);
}

TEST_CASE("compare: too few runs for a CI is inconclusive, never equivalent") {
  const std::vector<double> a{410, 410.1, 409.9};
  const std::vector<double> b{410, 410.05, 409.95};
  const Comparison c = compare(a, b, 0.05, 0.02);
  CHECK_FALSE(c.has_ci);
  CHECK(c.verdict == Verdict::kInconclusive);
}

TEST_CASE("one run a side has no spread: no robust CV and no detectable effect, never 0") {
  // The median steps of the two imported torch-ddp runs (shared/traces: control, sleep-layer2).
  const std::vector<double> a{40.61};
  const std::vector<double> b{30.25};
  CHECK_FALSE(summarize(a).robust_cv);
  const Comparison c = compare(a, b, 0.05, 0.02);
  CHECK_FALSE(c.mde_relative);
  CHECK(c.verdict == Verdict::kInconclusive);
  const std::vector<double> two{40.61, 40.9};
  CHECK(summarize(two).robust_cv.value() > 0);
  CHECK_FALSE(compare(two, b, 0.05, 0.02).mde_relative);
  CHECK(compare(two, two, 0.05, 0.02).mde_relative.value() > 0);
}

TEST_CASE("compare rejects bad input with a message") {
  const std::vector<double> ok{1, 2, 3};
  const std::vector<double> empty;
  const std::vector<double> nan{1, std::nan(""), 3};
  const std::vector<double> zero{0, 0, 0};
  CHECK_THROWS_AS(compare(empty, ok, 0.05, 0.02), culprit::UsageError);
  CHECK_THROWS_WITH_AS(compare(ok, empty, 0.05, 0.02),
                       doctest::Contains("candidate has no samples"), culprit::UsageError);
  CHECK_THROWS_AS(compare(nan, ok, 0.05, 0.02), culprit::UsageError);
  CHECK_THROWS_AS(compare(zero, ok, 0.05, 0.02), culprit::UsageError);
  CHECK_THROWS_AS(compare(ok, ok, 1.5, 0.02), culprit::UsageError);
  CHECK_THROWS_AS(compare(ok, ok, 0.05, -1), culprit::UsageError);
  CHECK_THROWS_AS(summarize(empty), culprit::UsageError);
}

TEST_CASE("minimum detectable effect follows the documented formula and shrinks with n") {
  // MAD of {9, 10, 11} is 1, so the robust SD is 1.4826 on both sides.
  const std::vector<double> a{9, 10, 11};
  const std::vector<double> b{19, 20, 21};
  const double z = normal_quantile(0.975) + normal_quantile(0.8);
  const double expected = z * 1.4826 * std::sqrt(2.0 / 3) * std::sqrt(std::numbers::pi / 3) / 10;
  CHECK(minimum_detectable_relative_effect(a, b, 0.05, 0.8) ==
        doctest::Approx(expected).epsilon(1e-9));
  CHECK(normal_quantile(0.975) == doctest::Approx(1.959963984540054).epsilon(1e-12));

  std::mt19937_64 rng(3);
  const Comparison small = compare_normal_samples(rng, 5, 100, 100, 2);
  const Comparison large = compare_normal_samples(rng, 80, 100, 100, 2);
  CHECK(large.mde_relative.value() < small.mde_relative.value());
}

TEST_CASE("adaptive sampling: Bonferroni over planned looks, balanced blocks, cap") {
  SamplingPlan plan;
  plan.repetitions = 5;
  plan.max_repetitions = 20;
  plan.alpha = 0.05;
  plan.margin = 0.02;
  CHECK(block_size(plan) == 5);
  CHECK(planned_looks(plan) == 4);
  CHECK(look_alpha(plan) == doctest::Approx(0.0125));
  plan.block = 4;
  CHECK(planned_looks(plan) == 5);  // 1 + ceil(15 / 4)
  plan.block = 5;

  std::mt19937_64 rng(11);
  // Noisy, small shift: inconclusive at 5 runs -> add a block of 5 to each side.
  const auto a = normal_sample(rng, 5, 100, 3);
  const auto b = normal_sample(rng, 5, 101, 3);
  SamplingDecision d = decide_sampling(a, b, plan);
  CHECK(d.comparison.verdict == Verdict::kInconclusive);
  CHECK_FALSE(d.stop);
  CHECK(d.add_per_configuration == 5);
  CHECK(d.look == 1);
  CHECK(d.comparison.alpha == doctest::Approx(0.0125));

  // The last block is trimmed to the cap; at the cap the decision is to stop.
  const auto a18 = normal_sample(rng, 18, 100, 3);
  const auto b18 = normal_sample(rng, 18, 101, 3);
  d = decide_sampling(a18, b18, plan);
  if (d.comparison.verdict == Verdict::kInconclusive) {
    CHECK_FALSE(d.stop);
    CHECK(d.add_per_configuration == 2);
    CHECK(d.look == 4);
  }
  const auto a20 = normal_sample(rng, 20, 100, 30);
  const auto b20 = normal_sample(rng, 20, 100, 30);
  d = decide_sampling(a20, b20, plan);
  CHECK(d.comparison.verdict == Verdict::kInconclusive);
  CHECK(d.stop);
  CHECK(d.reason == "at max_repetitions");

  // A clear regression stops at the first look.
  const auto fast = normal_sample(rng, 5, 410, 2);
  const auto slow = normal_sample(rng, 5, 485, 2);
  d = decide_sampling(fast, slow, plan);
  CHECK(d.stop);
  CHECK(d.comparison.verdict == Verdict::kRegressed);

  plan.repetitions = 0;
  CHECK_THROWS_AS(decide_sampling(fast, slow, plan), culprit::UsageError);
}

TEST_CASE("environment check names the facts that differ beyond the varied factor") {
  const EnvironmentFacts base{{"ranks_per_core", "1"},      {"binding", "core"},
                              {"yield_mode", "aggressive"}, {"hosts", "node1"},
                              {"backend", "cpu"},           {"version", "v1"}};
  EnvironmentFacts cand = base;
  cand.insert_or_assign("version", std::string("v2"));
  CHECK(differing_environment(base, cand, "version").empty());
  CHECK_NOTHROW(require_same_environment(base, cand, "version", "baseline", "version=v2"));

  cand.insert_or_assign("binding", std::string("none"));
  cand.erase("yield_mode");
  const auto diff = differing_environment(base, cand, "version");
  CHECK(diff == std::vector<std::string>{"binding", "yield_mode"});
  CHECK_THROWS_WITH_AS(
      require_same_environment(base, cand, "version", "baseline", "version=v2"),
      doctest::Contains("binding 'core' vs 'none'; yield_mode 'aggressive' vs (not recorded)"),
      culprit::UsageError);

  EnvironmentFacts more_ranks = base;
  more_ranks.insert_or_assign("ranks_per_core", std::string(1, '2'));
  CHECK(differing_environment(base, more_ranks, "ranks").empty());
  CHECK(differing_environment(base, more_ranks, "version") ==
        std::vector<std::string>{"ranks_per_core"});
}

TEST_CASE("200 runs per side compares without trouble (normal approximation)") {
  std::mt19937_64 rng(5);
  const Comparison c = compare_normal_samples(rng, 200, 410, 412, 5);
  CHECK(c.method == Method::kNormal);
  CHECK(c.has_ci);
  CHECK(c.shift_lo < c.shift);
  CHECK(c.shift < c.shift_hi);
  CHECK(c.shift == doctest::Approx(2).epsilon(0.75));
}

TEST_CASE("paired comparison: load common to a pair cancels; exact signed-rank p and CI") {
  // The machine's load varies by up to 2x from pair to pair; the candidate is 5 % slower in
  // every pair. Unpaired, the load swamps the step; paired, it is exact.
  std::vector<double> base;
  std::vector<double> cand;
  for (int i = 0; i < 10; ++i) {
    const double load = 1 + 0.1 * i * (i % 2 == 0 ? 1 : 0.5);
    base.push_back(100 * load);
    cand.push_back(105 * load * (1 + 0.001 * (i % 3)));
  }
  const auto unpaired = culprit::stats::compare(base, cand, 0.05, 0.02);
  const auto paired = culprit::stats::compare_paired(base, cand, {0.05, 0.02});
  CHECK(unpaired.verdict == culprit::stats::Verdict::kInconclusive);
  CHECK(paired.verdict == culprit::stats::Verdict::kRegressed);
  CHECK(paired.relative == doctest::Approx(0.051).epsilon(0.02));
  CHECK(paired.relative_lo > 0.049);
  CHECK(paired.relative_hi < 0.053);
  // All 10 log ratios positive: T+ = 55, two-sided p = 2 / 2^10.
  CHECK(paired.p_value == doctest::Approx(2.0 / 1024));

  // 5 pairs cannot exclude 0 at alpha 0.05 (the smallest two-sided p is 2 / 32).
  const std::vector<double> a5(base.begin(), base.begin() + 5);
  const std::vector<double> b5(cand.begin(), cand.begin() + 5);
  const auto small = culprit::stats::compare_paired(a5, b5, {0.05, 0.02});
  CHECK(!small.has_ci);
  CHECK(small.p_value == doctest::Approx(0.0625));
  CHECK(small.verdict == culprit::stats::Verdict::kInconclusive);

  CHECK_THROWS_AS(culprit::stats::compare_paired(a5, cand, {0.05, 0.02}), culprit::UsageError);
}

TEST_CASE("look sizes: repetitions, then a block at a time, the cap last") {
  SamplingPlan plan;
  plan.repetitions = 5;
  plan.max_repetitions = 22;
  CHECK(look_sizes(plan) == std::vector<int>{5, 10, 15, 20, 22});
  CHECK(static_cast<int>(look_sizes(plan).size()) == planned_looks(plan));
  plan.repetitions = 3;
  plan.block = 3;
  plan.max_repetitions = 9;
  CHECK(look_sizes(plan) == std::vector<int>{3, 6, 9});
  CHECK(look_alpha(plan) == doctest::Approx(0.05 / 3));
  plan.look_level = 0.01;  // a calibrated boundary replaces alpha / looks
  CHECK(look_alpha(plan) == doctest::Approx(0.01));
}

TEST_CASE("sequential boundary: one look is the exact test's own level") {
  // With a single look there is nothing to calibrate: the boundary's critical rank is the
  // exact one-look test's at two-sided 2 * error.
  for (const int n : {6, 10, 15}) {
    const std::vector<int> looks = {n};
    const SequentialBoundary b = sequential_boundary(looks, 0.025);
    CHECK(hl_critical_rank_exact(n, n, b.look_level) == hl_critical_rank_exact(n, n, 0.05));
    CHECK(b.one_sided_error <= 0.025);
    CHECK(b.simulations == 100000);
  }
}

TEST_CASE("sequential boundary: correlated looks get a level well above alpha / looks") {
  const std::vector<int> looks = {3, 6, 9, 12, 15, 18, 21, 24, 27, 30};
  const double error = 0.0125;
  const SequentialBoundary b = sequential_boundary(looks, error);
  CHECK(b.one_sided_error <= error);
  CHECK(b.one_sided_error > 0.8 * error);      // the error is spent, not wasted
  CHECK(b.look_level > 2 * (2 * error / 10));  // Bonferroni: 2 * error / 10 two-sided
  CHECK(b.look_level < 2 * error);             // but below the one-look level
  // Deterministic and cached: the same answer again.
  CHECK(sequential_boundary(looks, error).look_level == b.look_level);

  // Independent check on normal data (another distribution, another generator): the share of
  // null sequences in which some look's HL lower bound at that level lies above 0.
  std::mt19937_64 rng(2026);
  std::normal_distribution<double> noise(100, 3);
  const int sequences = 4000;
  std::vector<int> ranks;  // each look's critical rank at the boundary's level
  for (const int n : looks) ranks.push_back(hl_critical_rank_exact(n, n, b.look_level));
  int rejected = 0;
  for (int s = 0; s < sequences; ++s) {
    std::vector<double> a;
    std::vector<double> c;
    for (std::size_t l = 0; l < looks.size(); ++l) {
      while (static_cast<int>(a.size()) < looks[l]) {
        a.push_back(noise(rng));
        c.push_back(noise(rng));
      }
      const int k = ranks[l];
      if (k >= 1 && hodges_lehmann(a, c, k).lo > 0) {
        ++rejected;
        break;
      }
    }
  }
  const double standard_error = std::sqrt(error * (1 - error) / sequences);
  CHECK(static_cast<double>(rejected) / sequences <= error + 3 * standard_error);
  CHECK(static_cast<double>(rejected) / sequences >= error - 4 * standard_error);
}

TEST_CASE("sequential boundary: bad looks and errors are usage errors") {
  const std::vector<int> none;
  const std::vector<int> unordered = {6, 3};
  const std::vector<int> ok = {3, 6};
  CHECK_THROWS_WITH_AS(sequential_boundary(none, 0.01),
                       doctest::Contains("looks of increasing runs per side"), culprit::UsageError);
  CHECK_THROWS_AS(sequential_boundary(unordered, 0.01), culprit::UsageError);
  CHECK_THROWS_WITH_AS(sequential_boundary(ok, 0.5), doctest::Contains("(0, 0.5)"),
                       culprit::UsageError);
}

TEST_CASE("boundary look level: the plan's looks while judged exactly, else Bonferroni") {
  SamplingPlan plan;
  plan.repetitions = 5;
  plan.max_repetitions = 30;
  const std::vector<int> looks = look_sizes(plan);
  CHECK(boundary_look_level(plan, 0.025) == sequential_boundary(looks, 0.025).look_level);
  plan.max_repetitions = 60;  // 3600 pairs > exact_max_pairs: compare goes normal
  CHECK(boundary_look_level(plan, 0.025) == doctest::Approx(0.05 / 12));
  plan.look_level = boundary_look_level(plan, 0.025);
  CHECK(look_alpha(plan) == doctest::Approx(0.05 / planned_looks(plan)));
}
