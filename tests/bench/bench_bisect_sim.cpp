// How often bisection names the right culprit, and how many runs it spends, over seeded
// simulated bisections: 64 versions, the culprit (drawn per seed) and every later version 5 %
// slower, run medians lognormal with 3 % run-to-run CV around 1.00 and 1.05 (in-process draws:
// launching culprit-sim for every run would take hours for the same statistics).
//
//   bench_bisect_sim [bisections=100] [versions=64] [regression=0.05] [cv=0.03]
//                    [repetitions=5] [max_repetitions=30]

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "culprit/bisect/bisector.hpp"

namespace {

class LognormalVersions : public culprit::bisect::Measurer {
 public:
  LognormalVersions(int culprit, double regression, double cv, std::uint64_t seed)
      : culprit_(culprit),
        regression_(regression),
        sigma_(std::sqrt(std::log1p(cv * cv))),
        rng_(seed) {}

  std::vector<double> samples(int index, int min_n) override {
    auto& runs = runs_[index];
    std::normal_distribution<double> normal;
    const double level = index >= culprit_ ? 1.0 + regression_ : 1.0;
    while (static_cast<int>(runs.size()) < min_n) {
      runs.push_back(level * std::exp(sigma_ * normal(rng_) - 0.5 * sigma_ * sigma_));
    }
    return runs;
  }

 private:
  int culprit_;
  double regression_;
  double sigma_;
  std::mt19937_64 rng_;
  std::vector<std::vector<double>> runs_ = std::vector<std::vector<double>>(4096);
};

double arg(int argc, char** argv, int i, double fallback) {
  return argc > i ? std::atof(argv[i]) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(std::getenv("BENCH_VERBOSE") != nullptr ? spdlog::level::info
                                                            : spdlog::level::warn);
  const int bisections = static_cast<int>(arg(argc, argv, 1, 100));
  const int versions = static_cast<int>(arg(argc, argv, 2, 64));
  const double regression = arg(argc, argv, 3, 0.05);
  const double cv = arg(argc, argv, 4, 0.03);
  culprit::bisect::Options options;
  options.repetitions = static_cast<int>(arg(argc, argv, 5, 5));
  options.max_repetitions = static_cast<int>(arg(argc, argv, 6, 30));

  std::vector<std::string> names;
  for (int i = 0; i < versions; ++i) names.push_back(std::to_string(i));

  int right = 0;
  int found = 0;
  int inconclusive = 0;
  int not_reproduced = 0;
  std::vector<int> runs;
  std::mt19937_64 pick(20260);
  for (int b = 0; b < bisections; ++b) {
    const int culprit = std::uniform_int_distribution<int>(1, versions - 1)(pick);
    LognormalVersions measurer(culprit, regression, cv, 1000 + static_cast<std::uint64_t>(b));
    const auto result = culprit::bisect::run_bisection(names, measurer, options);
    runs.push_back(result.runs);
    switch (result.status) {
      case culprit::bisect::Status::kFound:
        ++found;
        break;
      case culprit::bisect::Status::kInconclusive:
        ++inconclusive;
        break;
      case culprit::bisect::Status::kNotReproduced:
        ++not_reproduced;
        break;
    }
    if (result.status == culprit::bisect::Status::kFound && result.first_bad == culprit) ++right;
    if (std::getenv("BENCH_VERBOSE") != nullptr && result.first_bad != culprit) {
      std::fprintf(stderr, "seed %d, culprit %d: %s\n", b, culprit, result.message.c_str());
      for (const auto& step : result.steps) {
        std::fprintf(stderr, "  %d: %s vs good, %s vs bad, %s at n=%d\n", step.index,
                     culprit::stats::verdict_name(step.vs_good),
                     step.vs_bad ? culprit::stats::verdict_name(*step.vs_bad) : "-",
                     std::string(culprit::bisect::to_string(step.outcome)).c_str(), step.n);
      }
    }
  }
  std::sort(runs.begin(), runs.end());
  const auto pct = [&](int count) { return 100.0 * count / bisections; };
  std::printf(
      "bisections %d, versions %d, regression %.1f %%, run-to-run CV %.1f %%, "
      "repetitions %d..%d, alpha %.2f, margin %.2f\n",
      bisections, versions, 100 * regression, 100 * cv, options.repetitions,
      options.max_repetitions, options.alpha, options.margin);
  std::printf("culprit right: %d (%.1f %%)\n", right, pct(right));
  std::printf("status found %d, inconclusive %d, not_reproduced %d\n", found, inconclusive,
              not_reproduced);
  std::printf("runs per bisection: median %d, p10 %d, p90 %d, max %d\n", runs[runs.size() / 2],
              runs[runs.size() / 10], runs[runs.size() * 9 / 10], runs.back());
  return 0;
}
