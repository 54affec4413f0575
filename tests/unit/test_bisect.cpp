// The bisection state machine driven by in-process measurements with a known truth.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "culprit/bisect/bisector.hpp"
#include "culprit/bisect/git_source.hpp"
#include "culprit/bisect/versions.hpp"
#include "culprit/errors.hpp"
#include "culprit/stats/sequential.hpp"

extern char** environ;

namespace {

using culprit::bisect::Options;
using culprit::bisect::Outcome;
using culprit::bisect::Result;
using culprit::bisect::run_bisection;
using culprit::bisect::Status;

// Run medians drawn around a per-version level with a lognormal run-to-run CV, kept like a
// store keeps runs: asking again returns the same runs, asking for more adds new ones.
class FakeVersions : public culprit::bisect::Measurer {
 public:
  FakeVersions(std::vector<double> levels, double cv, std::uint64_t seed = 7)
      : levels_(std::move(levels)), cv_(cv), seed_(seed) {}

  std::vector<double> samples(int index, int min_n) override {
    if (untestable.count(index) != 0) throw culprit::bisect::Untestable("build failed");
    auto it = overrides.find(index);
    if (it != overrides.end()) {
      new_runs += std::max(0, min_n - static_cast<int>(it->second.size()));
      return std::vector<double>(it->second.begin(), it->second.begin() + min_n);
    }
    auto& runs = store_[index];
    while (static_cast<int>(runs.size()) < min_n) {
      std::mt19937_64 rng(seed_ * 1000003ULL + static_cast<std::uint64_t>(index) * 7919ULL +
                          runs.size());
      std::normal_distribution<double> normal;
      const double sigma = std::sqrt(std::log1p(cv_ * cv_));
      runs.push_back(levels_[static_cast<std::size_t>(index)] *
                     std::exp(sigma * normal(rng) - 0.5 * sigma * sigma));
      ++new_runs;
    }
    return runs;
  }

  std::set<int> untestable;
  std::map<int, std::vector<double>> overrides;  // fixed run medians for some versions
  int new_runs = 0;

 private:
  std::vector<double> levels_;
  double cv_;
  std::uint64_t seed_;
  std::map<int, std::vector<double>> store_;
};

std::vector<std::string> names(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::string name = "v";  // appended, not `"v" + ...`: GCC 12 -Wrestrict false positive
    name += std::to_string(i);
    out.push_back(name);
  }
  return out;
}

// `count` versions at 100 ms; from each (index, factor) on, the level is multiplied by factor.
std::vector<double> levels(int count, const std::map<int, double>& steps) {
  std::vector<double> out;
  double level = 100;
  for (int i = 0; i < count; ++i) {
    auto it = steps.find(i);
    if (it != steps.end()) level *= it->second;
    out.push_back(level);
  }
  return out;
}

Options options() {
  Options o;
  o.repetitions = 5;
  o.max_repetitions = 15;
  o.alpha = 0.05;
  o.margin = 0.02;
  return o;
}

bool has_outcome(const Result& r, int index, Outcome outcome) {
  for (const auto& step : r.steps) {
    if (step.index == index && step.outcome == outcome) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a single 15 % step is found and verified against its predecessor") {
  FakeVersions fake(levels(16, {{9, 1.15}}), 0.01);
  const Result r = run_bisection(names(16), fake, options());
  CHECK(r.status == Status::kFound);
  CHECK(r.first_bad == 9);
  CHECK(r.last_good == 8);
  CHECK(r.shift.verdict == culprit::bisect::Verdict::kRegressed);
  CHECK(r.shift.relative == doctest::Approx(0.15).epsilon(0.2));
  CHECK(r.shift.shift_lo > 0);
  CHECK(r.steps.front().kind == culprit::bisect::Step::Kind::kEndpoints);
  CHECK(r.steps.back().kind == culprit::bisect::Step::Kind::kVerify);
  CHECK(r.untestable_candidates.empty());
  CHECK(r.multiple_steps.empty());
  CHECK(r.runs == fake.new_runs);
  // The posterior's top candidate is the culprit, at >= 1 - alpha.
  REQUIRE(!r.candidates.empty());
  CHECK(r.candidates.front().index == 9);
  CHECK(r.candidates.front().probability >= 0.95);
  CHECK(r.steps.back().probability >= 0.95);
  // A 15 % step in 1 % noise: the endpoints at the first look, about one run per halving
  // with a run of a bracket end beside it, and the confirmation.
  CHECK(r.runs <= 40);
}

TEST_CASE("the culprit is found wherever it sits, including next to either endpoint") {
  for (int culprit : {1, 2, 5, 11, 14, 15}) {
    CAPTURE(culprit);
    FakeVersions fake(levels(16, {{culprit, 1.10}}), 0.01, 100 + static_cast<unsigned>(culprit));
    const Result r = run_bisection(names(16), fake, options());
    CHECK(r.status == Status::kFound);
    CHECK(r.first_bad == culprit);
    CHECK(r.last_good == culprit - 1);
  }
}

TEST_CASE("a rerun on the same store reuses every run and reaches the same answer") {
  FakeVersions fake(levels(12, {{6, 1.15}}), 0.02);
  const Result first = run_bisection(names(12), fake, options());
  const int runs_made = fake.new_runs;
  const Result second = run_bisection(names(12), fake, options());
  CHECK(fake.new_runs == runs_made);
  CHECK(second.status == first.status);
  CHECK(second.first_bad == first.first_bad);
  CHECK(second.runs == first.runs);
  CHECK(second.steps.size() == first.steps.size());
}

TEST_CASE("equivalent endpoints end as not reproduced") {
  FakeVersions fake(levels(12, {}), 0.01);
  const Result r = run_bisection(names(12), fake, options());
  CHECK(r.status == Status::kNotReproduced);
  CHECK(r.shift.verdict == culprit::bisect::Verdict::kEquivalent);
  CHECK(r.steps.size() == 1);
  CHECK(r.runs <= 2 * 15);  // only the endpoints were measured
}

TEST_CASE("flat ranges in 3 % noise end not_reproduced, never inconclusive or found") {
  // A/A: whatever the endpoints' first looks lean to, the search's no-step posterior or the
  // endpoints over all their runs end it as "no regression reproduced".
  Options o = options();
  o.margin = 0.02;
  o.max_repetitions = 30;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    FakeVersions fake(levels(32, {}), 0.03, seed);
    o.seed = seed;
    const Result r = run_bisection(names(32), fake, o);
    CAPTURE(seed);
    CAPTURE(r.message);
    CHECK(r.status == Status::kNotReproduced);
  }
}

TEST_CASE("the confirmation judges fresh unpaired runs, at least where its exact CI exists") {
  FakeVersions fake(levels(16, {{9, 1.15}}), 0.01);
  const Result r = run_bisection(names(16), fake, options());
  REQUIRE(r.status == Status::kFound);
  const auto& verify = r.steps.back();
  REQUIRE(verify.kind == culprit::bisect::Step::Kind::kVerify);
  // alpha / 2 over the looks: 2 / C(2n, n) must reach the look's one-sided level; with alpha
  // 0.05 and blocks of 5 up to 15 runs that is n = 6 (2 / 924 < 0.05 / 2 / 3 / 2 < 2 / 252).
  CHECK(verify.n == 6);
  CHECK(r.shift.n_baseline == 6);
  CHECK(r.shift.n_candidate == 6);
  // Found only with the posterior holding the pair with 1 - alpha / 10.
  CHECK(verify.probability >= 0.995);
}

TEST_CASE("an improvement is not a regression to bisect") {
  FakeVersions fake(levels(8, {{4, 0.8}}), 0.01);
  const Result r = run_bisection(names(8), fake, options());
  CHECK(r.status == Status::kNotReproduced);
  CHECK(r.shift.verdict == culprit::bisect::Verdict::kImproved);
}

TEST_CASE("untestable versions next to the culprit are skipped and reported as candidates") {
  FakeVersions fake(levels(16, {{9, 1.15}}), 0.01);
  fake.untestable = {7, 8};
  const Result r = run_bisection(names(16), fake, options());
  CHECK(r.status == Status::kFound);
  CHECK(r.first_bad == 9);
  CHECK(r.last_good == 6);
  CHECK(r.untestable_candidates == std::vector<int>{7, 8});
  CHECK((has_outcome(r, 7, Outcome::kUntestable) || has_outcome(r, 8, Outcome::kUntestable)));
}

TEST_CASE("an untestable version away from the culprit is skipped, not a candidate") {
  FakeVersions fake(levels(16, {{12, 1.15}}), 0.01);
  fake.untestable = {7, 8};  // where the first split falls
  const Result r = run_bisection(names(16), fake, options());
  CHECK(r.status == Status::kFound);
  CHECK(r.first_bad == 12);
  CHECK(r.last_good == 11);
  REQUIRE(!r.skipped.empty());
  for (int s : r.skipped) CHECK((s == 7 || s == 8));
  CHECK(r.untestable_candidates.empty());
}

TEST_CASE(
    "two steps: both are reported, with the probability of the smaller, and the larger is "
    "followed") {
  // +5 % at v5, +15 % at v11.
  FakeVersions fake(levels(16, {{5, 1.05}, {11, 1.15}}), 0.005);
  const Result r = run_bisection(names(16), fake, options());
  CHECK(r.status == Status::kFound);
  CHECK(r.first_bad == 11);
  CHECK(r.last_good == 10);
  REQUIRE(r.multiple_steps.size() == 1);
  const auto& other = r.multiple_steps.front();
  CHECK(other.index >= 1);
  CHECK(other.index <= 10);
  CHECK(other.probability >= 0.95);
  CHECK(other.shift_from_good_ms == doctest::Approx(5).epsilon(0.3));
  CHECK(other.shift_to_bad_ms == doctest::Approx(15.75).epsilon(0.2));
}

TEST_CASE("when the earlier step is the larger one, bisection follows it") {
  FakeVersions fake(levels(16, {{3, 1.15}, {11, 1.05}}), 0.005);
  const Result r = run_bisection(names(16), fake, options());
  CHECK(r.status == Status::kFound);
  CHECK(r.first_bad == 3);
  REQUIRE(!r.multiple_steps.empty());
  CHECK(r.multiple_steps.front().index > 3);
}

TEST_CASE("noise that puts the margin out of reach is reported early with CV, MDE and advice") {
  // A 5 % step in 20 % run-to-run noise: 15 runs per version cannot show it.
  FakeVersions fake(levels(16, {{8, 1.05}}), 0.20, 5);
  Options o = options();
  const Result r = run_bisection(names(16), fake, o);
  if (r.noise.limited) {
    CHECK(r.status == Status::kInconclusive);
    CHECK(r.noise.cv == doctest::Approx(0.2).epsilon(0.6));
    CHECK(r.noise.mde_at_cap > 0.1);
    CHECK(r.noise.runs_needed > o.max_repetitions);
    CHECK(r.message.find("max_repetitions") != std::string::npos);
    CHECK(r.message.find("CV") != std::string::npos);
    CHECK(r.runs <= 2 * (o.repetitions + o.repetitions));  // stopped at the second look
  } else {
    // The endpoints' estimate fell below the margin: the cap then says "not reproduced".
    CHECK(r.status != Status::kFound);
  }
  // Never a culprit from noise alone.
  CHECK((r.status != Status::kFound || r.first_bad == 8));
}

TEST_CASE("a load spike over consecutive runs does not make a wrong culprit") {
  // Every run made while the machine is loaded (runs 25..44 in time) is 20 % slower.
  class Spiky : public culprit::bisect::Measurer {
   public:
    std::vector<double> samples(int index, int min_n) override {
      auto& runs = store_[index];
      while (static_cast<int>(runs.size()) < min_n) {
        std::normal_distribution<double> normal(0, 0.01);
        const double level = index >= 10 ? 110 : 100;
        const double load = clock_ >= 25 && clock_ < 45 ? 1.2 : 1.0;
        runs.push_back(level * load * std::exp(normal(rng_)));
        ++clock_;
      }
      return runs;
    }

   private:
    std::map<int, std::vector<double>> store_;
    std::mt19937_64 rng_{3};
    int clock_ = 0;
  };
  Spiky spiky;
  const Result r = run_bisection(names(32), spiky, options());
  CHECK((r.status != Status::kFound || r.first_bad == 10));
  CHECK(r.status == Status::kFound);
}

TEST_CASE("inconclusive comparisons get more runs before deciding") {
  // A 8 % step in 4 % noise rarely decides at 5 runs each; the cap of 30 lets it.
  FakeVersions fake(levels(8, {{5, 1.08}}), 0.04, 3);
  Options o = options();
  o.max_repetitions = 30;
  const Result r = run_bisection(names(8), fake, o);
  CHECK(r.status == Status::kFound);
  CHECK(r.first_bad == 5);
  CHECK(r.runs > 8 * o.repetitions / 2);
}

TEST_CASE("an untestable endpoint and bad arguments are refused") {
  FakeVersions fake(levels(8, {{5, 1.2}}), 0.01);
  fake.untestable = {0};
  CHECK_THROWS_AS(run_bisection(names(8), fake, options()), culprit::RunError);
  CHECK_THROWS_AS(run_bisection(names(1), fake, options()), culprit::UsageError);
  Options o = options();
  o.max_repetitions = 2;
  CHECK_THROWS_AS(run_bisection(names(8), fake, o), culprit::UsageError);
}

TEST_CASE("noisy endpoints: no culprit from noise, and a step lost in it is said early") {
  FakeVersions flat(levels(6, {}), 0.4, 21);
  const Result same = run_bisection(names(6), flat, options());
  CHECK(same.status != Status::kFound);

  // A 10 % step in 40 % noise: 15 runs per version cannot show it; said at the second look
  // when the endpoints' posterior leans to a step (17 of seeds 1 - 60, 8 of 1 - 30).
  int limited = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    FakeVersions slower(levels(6, {{5, 1.1}}), 0.4, seed);
    const Result unclear = run_bisection(names(6), slower, options());
    CHECK(unclear.status != Status::kFound);
    if (unclear.noise.limited) {
      ++limited;
      CHECK(unclear.status == Status::kInconclusive);
      CHECK(unclear.last_good == 0);
      CHECK(unclear.first_bad == 5);
      CHECK(unclear.runs == 2 * 10);
      CHECK(unclear.noise.runs_needed > 15);
    }
  }
  CHECK(limited >= 5);
}

TEST_CASE("judge_pair adds interleaved runs while inconclusive, through one adaptive loop") {
  FakeVersions fake(levels(2, {{1, 1.06}}), 0.03, 9);
  Options o = options();
  o.max_repetitions = 30;
  const auto judged = culprit::bisect::judge_pair(fake, 0, 1, o);
  CHECK(judged.n > o.repetitions);
  CHECK(judged.comparison.verdict == culprit::bisect::Verdict::kRegressed);
  CHECK(judged.comparison.n_baseline == judged.n);
  // Its looks at the calibrated boundary, alpha / 2 a side: above alpha / K (Bonferroni).
  const culprit::stats::SamplingPlan plan = culprit::bisect::sampling_plan(o);
  CHECK(judged.comparison.alpha ==
        doctest::Approx(culprit::stats::boundary_look_level(plan, o.alpha / 2)));
  CHECK(judged.comparison.alpha > 1.5 * culprit::stats::look_alpha(plan));
}

namespace {

namespace fs = std::filesystem;

// Runs argv (no shell) with output discarded; returns the exit status.
int run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A repository with commits c0..c4 on main (c2 without model.toml) and a side branch.
struct TempRepo {
  fs::path root = fs::temp_directory_path() / ("culprit-bisect-test-" + std::to_string(getpid()));
  fs::path repo = root / "repo";
  TempRepo() {
    fs::remove_all(root);
    fs::create_directories(repo);
    setenv("GIT_AUTHOR_NAME", "t", 1);
    setenv("GIT_AUTHOR_EMAIL", "t@example.com", 1);
    setenv("GIT_COMMITTER_NAME", "t", 1);
    setenv("GIT_COMMITTER_EMAIL", "t@example.com", 1);
    REQUIRE(git({"init", "-q", "-b", "main"}) == 0);
    for (int i = 0; i < 5; ++i) {
      if (i == 2) {
        git({"rm", "-q", "model.toml"});
      } else {
        write(repo / "model.toml", "compute_scale = " + std::string(i >= 3 ? "1.5" : "1.0") + "\n");
        git({"add", "model.toml"});
      }
      write(repo / "n.txt", std::to_string(i));
      git({"add", "n.txt"});
      REQUIRE(git({"commit", "-q", "-m", "c" + std::to_string(i)}) == 0);
      if (i == 0) git({"tag", "first"});
    }
    git({"checkout", "-q", "-b", "side", "first"});
    write(repo / "side.txt", "x");
    git({"add", "side.txt"});
    git({"commit", "-q", "-m", "side"});
    git({"checkout", "-q", "main"});
  }
  ~TempRepo() { fs::remove_all(root); }
  int git(std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", repo.string()});
    return run(args);
  }
};

}  // namespace

TEST_CASE("git range: first-parent commits, per-commit worktrees, cached builds, model files") {
  TempRepo t;
  const auto commits = culprit::bisect::first_parent_commits(t.repo.string(), "first", "main");
  REQUIRE(commits.size() == 5);
  CHECK(commits.front().subject == "c0");
  CHECK(commits.back().subject == "c4");
  CHECK(commits.back().sha == culprit::bisect::head_commit(t.repo.string()));
  CHECK_THROWS_AS(culprit::bisect::first_parent_commits(t.repo.string(), "side", "main"),
                  culprit::UsageError);
  CHECK_THROWS_AS(culprit::bisect::first_parent_commits(t.repo.string(), "first", "nope"),
                  culprit::UsageError);

  culprit::bisect::BuildCache cache(t.repo.string(), (t.root / "cache").string(),
                                    {"cp", "{worktree}/model.toml", "{worktree}/built.toml"});
  const auto good = cache.build(commits[3].sha);
  REQUIRE(good.ok);
  CHECK(!good.cached);
  CHECK(fs::exists(fs::path(good.worktree) / "built.toml"));
  CHECK(fs::exists(good.log_path));
  CHECK(cache.build(commits[3].sha).cached);
  const auto settings = culprit::bisect::read_model_file(good.worktree + "/built.toml");
  REQUIRE(settings.size() == 1);
  CHECK(settings[0].key == "compute_scale");
  CHECK(std::get<double>(settings[0].value) == 1.5);

  const auto broken = cache.build(commits[2].sha);
  CHECK(!broken.ok);
  CHECK(broken.error.find("build failed") != std::string::npos);
  const auto again = cache.build(commits[2].sha);
  CHECK(again.cached);
  CHECK(!again.ok);

  CHECK(culprit::bisect::substitute({"{worktree}/app", "--config", "{config}", "{commit}"},
                                    {{"worktree", "/w"}, {"commit", "abc"}},
                                    culprit::BraceEscapes::kKeep) ==
        std::vector<std::string>{"/w/app", "--config", "{config}", "abc"});
}

// Found by clang-tidy (bugprone-string-literal-with-embedded-nul): the separators were C strings
// that ended at their first NUL, so a name and the bytes after it ran together.
TEST_CASE("uncommitted changes: an untracked file's name and bytes are hashed apart") {
  TempRepo t;
  CHECK(culprit::bisect::uncommitted_changes_hash(t.repo.string()).empty());  // clean
  write(t.repo / "ab", "c");
  const std::string first = culprit::bisect::uncommitted_changes_hash(t.repo.string());
  fs::remove(t.repo / "ab");
  write(t.repo / "a", "bc");
  const std::string second = culprit::bisect::uncommitted_changes_hash(t.repo.string());
  CHECK(first.size() == 12);
  CHECK(second.size() == 12);
  CHECK(first != second);
  CHECK(culprit::bisect::uncommitted_changes_hash(t.repo.string()) == second);  // stable
}

TEST_CASE("a model file with an unknown key or a wrong type makes the commit untestable") {
  const fs::path dir = fs::temp_directory_path() / ("culprit-model-" + std::to_string(getpid()));
  fs::create_directories(dir);
  write(dir / "a.toml", "compute_scael = 1.2\n");
  CHECK_THROWS_AS(culprit::bisect::read_model_file((dir / "a.toml").string()),
                  culprit::bisect::Untestable);
  write(dir / "b.toml", "layers = 1.5\n");
  CHECK_THROWS_AS(culprit::bisect::read_model_file((dir / "b.toml").string()),
                  culprit::bisect::Untestable);
  write(dir / "c.toml", "compute_scale = 2\nlayers = 3\ncompute = \"sleep\"\n");
  const auto ok = culprit::bisect::read_model_file((dir / "c.toml").string());
  CHECK(ok.size() == 3);
  CHECK_THROWS_AS(culprit::bisect::read_model_file((dir / "missing.toml").string()),
                  culprit::bisect::Untestable);
  fs::remove_all(dir);
}

TEST_CASE("while the posterior doubts the step, the search's end runs go to the first and last") {
  // The last version's first runs are slow (a load spike while the endpoints were measured);
  // its later runs and every other version sit at the good level. Once midpoints and fresh runs
  // make the step doubtful, each block's end run goes to v0 or v15 (whose levels tell whether
  // there is a step at all), not to the bracket's ends near the posterior median.
  class Recording : public FakeVersions {
   public:
    using FakeVersions::FakeVersions;
    std::vector<double> samples(int index, int min_n) override {
      calls.push_back(index);
      return FakeVersions::samples(index, min_n);
    }
    std::vector<int> calls;
  };
  Recording fake(levels(16, {}), 0.01, 3);
  std::vector<double> last(30, 100.0);
  for (int i = 0; i < 30; ++i) {
    last[static_cast<std::size_t>(i)] = (i < 5 ? 108.0 : 100.0) + 0.3 * (i % 3);
  }
  fake.overrides[15] = last;
  Options o = options();
  o.max_repetitions = 30;
  const Result r = run_bisection(names(16), fake, o);
  CAPTURE(r.message);
  // Runs of v0 made between the search's first and last midpoint run: end runs of the search,
  // not the endpoints' phase or the final re-judgement of the endpoints. (25 here; with the
  // bracket's ends alone, 5.)
  const auto middle = [](int v) { return v != 0 && v != 15; };
  const auto first = std::find_if(fake.calls.begin(), fake.calls.end(), middle);
  const auto last_middle = std::find_if(fake.calls.rbegin(), fake.calls.rend(), middle).base();
  REQUIRE(first < last_middle);
  CHECK(std::count(first, last_middle, 0) >= 15);
  CHECK(r.status == Status::kNotReproduced);
}

TEST_CASE("above 50 runs a side, the confirmation keeps its calibrated boundary") {
  // With max_repetitions 60 the confirmation's 20 looks (3, 6, ... 60) use exact ranks, as its
  // simulated boundary does: the 15 % step of "the confirmation judges fresh unpaired runs"
  // passes at 6 + 6 fresh runs. At
  // alpha / K each (the fallback without exact ranks) its first passing look was 9 + 9.
  FakeVersions fake(levels(16, {{9, 1.15}}), 0.01);
  Options o = options();
  o.max_repetitions = 60;
  const Result r = run_bisection(names(16), fake, o);
  REQUIRE(r.status == Status::kFound);
  CHECK(r.first_bad == 9);
  const auto& verify = r.steps.back();
  REQUIRE(verify.kind == culprit::bisect::Step::Kind::kVerify);
  CHECK(verify.n == 6);
}
