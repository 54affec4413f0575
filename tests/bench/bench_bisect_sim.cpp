// How often bisection names the right culprit, and how many runs it spends, over seeded
// simulated bisections: 64 versions, the culprit (drawn per seed) and every later version
// `regression` slower, run medians with a run-to-run CV around 1.00 and 1 + regression
// (in-process draws: launching culprit-sim for every run would take hours for the same
// statistics). Runs are drawn in the order bisection asks for them, so the "burst" noise model
// (a factor that jumps for a stretch of consecutive runs, plus Student-t tails and rare large
// outliers) hits neighbouring runs alike, as load on a shared machine does.
//
//   bench_bisect_sim table [seeds=200]     the acceptance table (docs/methodology.md): every
//                                          scenario at max_repetitions 30, then again at 60
//   bench_bisect_sim [bisections=100] [versions=64] [regression=0.05] [cv=0.03]
//                    [repetitions=5] [max_repetitions=30] [noise=lognormal|burst]

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "culprit/bisect/bisector.hpp"

namespace {

enum class Noise { kLognormal, kBurst };

class SimulatedVersions : public culprit::bisect::Measurer {
 public:
  SimulatedVersions(int culprit, double regression, double cv, Noise noise, std::uint64_t seed)
      : culprit_(culprit),
        regression_(regression),
        sigma_(std::sqrt(std::log1p(cv * cv))),
        noise_(noise),
        rng_(seed) {}

  std::vector<double> samples(int index, int min_n) override {
    auto& runs = runs_[static_cast<std::size_t>(index)];
    const double level = culprit_ > 0 && index >= culprit_ ? 1.0 + regression_ : 1.0;
    while (static_cast<int>(runs.size()) < min_n) runs.push_back(level * draw());
    return runs;
  }

 private:
  // One run's factor; in the burst model the machine state advances one run per draw.
  double draw() {
    std::normal_distribution<double> normal;
    if (noise_ == Noise::kLognormal) {
      return std::exp(sigma_ * normal(rng_) - 0.5 * sigma_ * sigma_);
    }
    std::uniform_real_distribution<double> uniform;
    if (burst_left_ == 0 && uniform(rng_) < 0.03) {
      burst_left_ = std::uniform_int_distribution<int>(4, 12)(rng_);
      burst_factor_ = 1.05 + 0.10 * uniform(rng_);
    }
    double factor = 1;
    if (burst_left_ > 0) {
      --burst_left_;
      factor = burst_factor_;
    }
    // Student-t with 3 degrees of freedom scaled to the same MAD as the lognormal model.
    std::student_t_distribution<double> t(3);
    const double z = t(rng_) * 0.6745 / 0.7649;
    factor *= std::exp(sigma_ * z);
    if (uniform(rng_) < 0.02) factor *= 1.1 + 0.4 * uniform(rng_);  // a rare very slow run
    return factor;
  }

  int culprit_;  // 0: no regression (A/A)
  double regression_;
  double sigma_;
  Noise noise_;
  std::mt19937_64 rng_;
  int burst_left_ = 0;
  double burst_factor_ = 1;
  std::vector<std::vector<double>> runs_ = std::vector<std::vector<double>>(4096);
};

struct Scenario {
  int bisections = 200;
  int versions = 64;
  double regression = 0.05;  // 0: A/A, no culprit
  double cv = 0.03;
  Noise noise = Noise::kLognormal;
  culprit::bisect::Options options;
};

struct Figures {
  int right = 0;
  int wrong_found = 0;  // found, but not the hidden culprit (or any culprit in A/A)
  int found = 0;
  int inconclusive = 0;
  int not_reproduced = 0;
  int median_runs = 0;
  int p90_runs = 0;
  int max_runs = 0;
  // Medians of the runs each phase spent: the endpoints' look(s), the search, the confirmation.
  int median_endpoint_runs = 0;
  int median_search_runs = 0;
  int median_confirm_runs = 0;
};

int median_of(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Figures simulate(const Scenario& s) {
  std::vector<std::string> names;
  for (int i = 0; i < s.versions; ++i) names.push_back(std::to_string(i));
  Figures f;
  std::vector<int> runs;
  std::vector<int> endpoint_runs;
  std::vector<int> search_runs;
  std::vector<int> confirm_runs;
  std::mt19937_64 pick(20260);
  const bool verbose = std::getenv("BENCH_VERBOSE") != nullptr;
  for (int b = 0; b < s.bisections; ++b) {
    const int drawn = std::uniform_int_distribution<int>(1, s.versions - 1)(pick);
    const int culprit = s.regression > 0 ? drawn : 0;
    SimulatedVersions measurer(culprit, s.regression, s.cv, s.noise,
                               1000 + static_cast<std::uint64_t>(b));
    culprit::bisect::Options options = s.options;
    options.seed = 77 + static_cast<std::uint64_t>(b);
    const auto result = culprit::bisect::run_bisection(names, measurer, options);
    runs.push_back(result.runs);
    int ends = 0;
    int confirm = 0;
    for (const auto& step : result.steps) {
      if (step.kind == culprit::bisect::Step::Kind::kEndpoints) ends += 2 * step.n;
      if (step.kind == culprit::bisect::Step::Kind::kVerify) confirm += 2 * step.n;
    }
    endpoint_runs.push_back(ends);
    confirm_runs.push_back(confirm);
    search_runs.push_back(std::max(result.runs - ends - confirm, 0));
    const bool found = result.status == culprit::bisect::Status::kFound;
    f.found += found ? 1 : 0;
    f.inconclusive += result.status == culprit::bisect::Status::kInconclusive ? 1 : 0;
    f.not_reproduced += result.status == culprit::bisect::Status::kNotReproduced ? 1 : 0;
    const bool right = culprit > 0 ? found && result.first_bad == culprit : !found;
    f.right += right ? 1 : 0;
    f.wrong_found += found && result.first_bad != culprit ? 1 : 0;
    if (verbose && (!right || std::getenv("BENCH_ALL") != nullptr)) {
      std::fprintf(stderr, "seed %d, culprit %d: %s: %s\n", b, culprit,
                   std::string(culprit::bisect::to_string(result.status)).c_str(),
                   result.message.c_str());
      std::fprintf(stderr, "  no step: %.4f\n", result.no_step_probability);
      for (const auto& c : result.candidates) {
        std::fprintf(stderr, "  candidate %d: %.4f\n", c.index, c.probability);
      }
      for (const auto& step : result.steps) {
        std::fprintf(stderr, "  %s %d: %s, %s at n=%d, p=%.3f\n",
                     std::string(culprit::bisect::to_string(step.kind)).c_str(), step.index,
                     culprit::stats::verdict_name(step.vs_good),
                     std::string(culprit::bisect::to_string(step.outcome)).c_str(), step.n,
                     step.probability);
      }
    }
  }
  std::sort(runs.begin(), runs.end());
  f.median_runs = runs[runs.size() / 2];
  f.p90_runs = runs[runs.size() * 9 / 10];
  f.max_runs = runs.back();
  f.median_endpoint_runs = median_of(endpoint_runs);
  f.median_search_runs = median_of(search_runs);
  f.median_confirm_runs = median_of(confirm_runs);
  return f;
}

void print_row(const char* label, const Scenario& s, const Figures& f) {
  std::printf(
      "| %-34s | %5d | %7.1f %% | %5d | %5d | %5d | %5d | %6d | %4d | %5d | %3d / %3d / %3d |\n",
      label, s.bisections, 100.0 * f.right / s.bisections, f.wrong_found, f.found, f.inconclusive,
      f.not_reproduced, f.median_runs, f.p90_runs, f.max_runs, f.median_endpoint_runs,
      f.median_search_runs, f.median_confirm_runs);
  std::fflush(stdout);
}

double arg(int argc, char** argv, int i, double fallback) {
  return argc > i ? std::atof(argv[i]) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(std::getenv("BENCH_VERBOSE") != nullptr ? spdlog::level::info
                                                            : spdlog::level::warn);
  culprit::bisect::Options defaults;
  defaults.repetitions = 5;
  defaults.max_repetitions = 30;
  std::printf(
      "| scenario (64 versions unless said)  | seeds | right     | wrong | found | incon | "
      "notre | median | p90  | max   | ends / search / confirm |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  if (argc > 1 && std::strcmp(argv[1], "table") == 0) {
    const int seeds = static_cast<int>(arg(argc, argv, 2, 200));
    struct Row {
      const char* label;
      double regression;
      Noise noise;
      int bisections;
    };
    const Row rows[] = {{"5 % step, 3 % CV", 0.05, Noise::kLognormal, seeds},
                        {"3 % step, 3 % CV", 0.03, Noise::kLognormal, seeds},
                        {"A/A (no step), 3 % CV", 0, Noise::kLognormal, seeds * 5 / 2},
                        {"5 % step, bursts + heavy tails", 0.05, Noise::kBurst, seeds},
                        {"3 % step, bursts + heavy tails", 0.03, Noise::kBurst, seeds}};
    // Every scenario at max_repetitions 30, then at 60: a step near the run-to-run CV needs more
    // runs of the pair than 30 (docs/methodology.md).
    for (const int cap : {30, 60}) {
      for (const Row& row : rows) {
        Scenario s;
        s.bisections = row.bisections;
        s.regression = row.regression;
        s.noise = row.noise;
        s.options = defaults;
        s.options.max_repetitions = cap;
        const std::string label = cap == 30 ? row.label : std::string(row.label) + ", cap 60";
        print_row(label.c_str(), s, simulate(s));
      }
    }
    return 0;
  }
  Scenario s;
  s.bisections = static_cast<int>(arg(argc, argv, 1, 100));
  s.versions = static_cast<int>(arg(argc, argv, 2, 64));
  s.regression = arg(argc, argv, 3, 0.05);
  s.cv = arg(argc, argv, 4, 0.03);
  s.options = defaults;
  s.options.repetitions = static_cast<int>(arg(argc, argv, 5, 5));
  s.options.max_repetitions = static_cast<int>(arg(argc, argv, 6, 30));
  s.noise = argc > 7 && std::strcmp(argv[7], "burst") == 0 ? Noise::kBurst : Noise::kLognormal;
  char label[96];
  std::snprintf(label, sizeof label, "%.1f %% step, %.1f %% CV%s, %d versions", 100 * s.regression,
                100 * s.cv, s.noise == Noise::kBurst ? ", burst" : "", s.versions);
  print_row(label, s, simulate(s));
  return 0;
}
