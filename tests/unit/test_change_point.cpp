// The change-point posterior over ordered versions (stats/change_point.hpp): known answers.

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/stats/change_point.hpp"

namespace {

using culprit::stats::change_point_posterior;
using culprit::stats::ChangePointOptions;
using culprit::stats::TimedRun;

// `runs_each` runs of every version listed in `measured`; level 100, 100 * (1 + step) from
// `first_bad` on (first_bad < 0: no step); lognormal noise of `cv`. Runs are stamped in order.
std::vector<std::vector<TimedRun>> draw(int versions, const std::vector<int>& measured,
                                        int runs_each, int first_bad, double step, double cv,
                                        unsigned seed = 1) {
  std::vector<std::vector<TimedRun>> out(static_cast<std::size_t>(versions));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, cv);
  long clock = 0;
  for (int r = 0; r < runs_each; ++r) {
    for (int v : measured) {
      const double level = first_bad >= 0 && v >= first_bad ? 100 * (1 + step) : 100;
      out[static_cast<std::size_t>(v)].push_back({level * std::exp(normal(rng)), clock++});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a clear step between two measured neighbours holds the mass") {
  const auto runs = draw(10, {0, 3, 5, 6, 9}, 4, 6, 0.10, 0.01);
  const auto post = change_point_posterior(runs);
  CHECK(post.most_likely == 6);
  CHECK(post.probability[6] > 0.99);
  CHECK(post.no_step < 1e-6);
  CHECK(post.relative_shift == doctest::Approx(0.10).epsilon(0.15));
  CHECK(post.sigma == doctest::Approx(0.01).epsilon(0.5));
  CHECK(post.cumulative[5] < 0.01);
  CHECK(post.cumulative[6] > 0.99);
}

TEST_CASE("between measured versions the mass spreads evenly over the unmeasured ones") {
  const auto runs = draw(10, {0, 4, 9}, 5, 6, 0.10, 0.01);
  const auto post = change_point_posterior(runs);
  // 4 is good, 9 bad: the step is at 5..9 with equal probability.
  for (int k = 5; k <= 9; ++k)
    CHECK(post.probability[static_cast<std::size_t>(k)] == doctest::Approx(0.2).epsilon(0.05));
  CHECK(post.cumulative[4] < 0.01);
}

TEST_CASE("flat versions keep their mass on no step") {
  // Over many draws: most of the mass stays on "no step", and rarely does a step look sure.
  double mean = 0;
  int sure = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    const auto post = change_point_posterior(draw(16, {0, 7, 15}, 6, -1, 0, 0.02, seed));
    mean += post.no_step / 200;
    sure += post.no_step < 0.05 ? 1 : 0;
  }
  MESSAGE("mean P(no step) ", mean, ", P(no step) < 0.05 in ", sure, " of 200");
  CHECK(mean > 0.5);
  CHECK(sure <= 10);
}

TEST_CASE("a lower later level is no step up") {
  const auto runs = draw(8, {0, 3, 7}, 5, 4, -0.10, 0.01);
  const auto post = change_point_posterior(runs);
  CHECK(post.no_step > 0.5);
}

TEST_CASE("one wild run does not move the step (Student-t likelihood)") {
  auto runs = draw(10, {0, 3, 5, 6, 9}, 5, 6, 0.10, 0.01);
  runs[3][0].value *= 1.5;  // a good version's run 50 % slow
  const auto post = change_point_posterior(runs);
  CHECK(post.most_likely == 6);
  CHECK(post.probability[6] > 0.95);
}

TEST_CASE("the runs choose the tails: near-normal for clean runs, heavy with outliers") {
  // The same 12 versions x 8 runs, with lognormal noise and then with Student-t(2) noise of
  // the same quartiles: each is explained best by the tails it was drawn with.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0, 0.02);
  std::student_t_distribution<double> heavy(2);
  std::vector<std::vector<TimedRun>> clean(12), outlying(12);
  long clock = 0;
  for (int r = 0; r < 8; ++r) {
    for (int v = 0; v < 12; ++v) {
      const double level = v >= 7 ? 102 : 100;
      clean[static_cast<std::size_t>(v)].push_back({level * std::exp(normal(rng)), clock});
      const double z = heavy(rng) * 0.02 * 0.6745 / 0.8165;
      outlying[static_cast<std::size_t>(v)].push_back({level * std::exp(z), clock++});
    }
  }
  const auto near_normal = change_point_posterior(clean);
  const auto robust = change_point_posterior(outlying);
  CHECK(near_normal.degrees_of_freedom >= 32);
  CHECK(robust.degrees_of_freedom <= 4);
  CHECK(near_normal.most_likely == 7);
  CHECK(robust.most_likely == 7);
  // On clean runs the average counts each run for more than t_4 alone does.
  ChangePointOptions t4;
  t4.degrees_of_freedom = {4};
  const auto t4_only = change_point_posterior(clean, t4);
  CHECK(t4_only.degrees_of_freedom == 4);
  // The mass left off v7: 0.0061 against t_4's 0.0089 (a 2 % step in 2 % noise).
  CHECK(1 - near_normal.probability[7] < 0.8 * (1 - t4_only.probability[7]));
}

TEST_CASE("a load spike over neighbouring runs is taken out by the drift term") {
  // v0 and v9 measured throughout (they inform the drift), v4 only during a spike of +20 %
  // that also hits the endpoints' runs made at the same time. Without the drift term v4 looks
  // bad; with it, v4 is at the good level, its true place.
  std::vector<std::vector<TimedRun>> runs(10);
  std::mt19937_64 rng(2);
  std::normal_distribution<double> normal(0, 0.01);
  long clock = 0;
  for (int r = 0; r < 12; ++r) {
    const bool spike = r >= 8;
    const double load = spike ? 1.2 : 1.0;
    runs[0].push_back({100 * load * std::exp(normal(rng)), clock++});
    if (spike) runs[4].push_back({100 * load * std::exp(normal(rng)), clock++});
    runs[9].push_back({110 * load * std::exp(normal(rng)), clock++});
  }
  ChangePointOptions plain;
  ChangePointOptions drift;
  drift.drift_window = 3;
  drift.drift_min_runs = 5;
  CHECK(change_point_posterior(runs, plain).cumulative[4] > 0.5);
  CHECK(change_point_posterior(runs, drift).cumulative[4] < 0.05);
}

TEST_CASE("bad input is refused with a reason") {
  std::vector<std::vector<TimedRun>> runs(3);
  CHECK_THROWS_AS(change_point_posterior(runs), culprit::UsageError);
  runs[0] = {{1, 0}};
  runs[2] = {{-1, 1}};
  CHECK_THROWS_AS(change_point_posterior(runs), culprit::UsageError);
  runs[2] = {{1, 1}};
  ChangePointOptions no_tails;
  no_tails.degrees_of_freedom = {};
  CHECK_THROWS_WITH_AS(change_point_posterior(runs, no_tails),
                       doctest::Contains("degrees_of_freedom must list at least one positive"),
                       culprit::UsageError);
  no_tails.degrees_of_freedom = {4, 0};
  CHECK_THROWS_AS(change_point_posterior(runs, no_tails), culprit::UsageError);
}

TEST_CASE("the minimum detectable step grows with the noise and shrinks with runs") {
  using culprit::stats::minimum_detectable_step;
  CHECK(minimum_detectable_step(0.03, 30, 0.05 / 6) == doctest::Approx(0.028).epsilon(0.1));
  CHECK(minimum_detectable_step(0.06, 30, 0.05) > minimum_detectable_step(0.03, 30, 0.05));
  CHECK(minimum_detectable_step(0.03, 60, 0.05) < minimum_detectable_step(0.03, 30, 0.05));
}

TEST_CASE("a step far beyond the usual regression (75x) is not ruled out by the prior") {
  // Two versions, a 2 ms step made 152 ms by a bad version (the Slurm bisect test's shape).
  const auto runs = draw(2, {0, 1}, 8, 1, 75.0, 0.02);
  const auto post = change_point_posterior(runs);
  CHECK(post.no_step < 1e-6);
  CHECK(post.probability[1] > 0.999);
}

TEST_CASE("the t likelihood's quartiles are the runs': known quartiles of Student-t") {
  // t_1 (Cauchy): tan(pi/4) = 1; t_2: 1/sqrt(2) * 2 * 0.25 / sqrt(0.75 * 0.25) = 0.8165; t_4:
  // 0.7407 (tables); a large nu tends to the normal's 0.6745.
  CHECK(culprit::stats::student_t_upper_quartile(1) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(culprit::stats::student_t_upper_quartile(2) == doctest::Approx(0.816497).epsilon(1e-5));
  CHECK(culprit::stats::student_t_upper_quartile(4) == doctest::Approx(0.740697).epsilon(1e-5));
  CHECK(culprit::stats::student_t_upper_quartile(1e6) == doctest::Approx(0.674490).epsilon(1e-4));
  CHECK_THROWS_AS(culprit::stats::student_t_upper_quartile(0), culprit::UsageError);
}
