#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "culprit/bisect/bisector.hpp"
#include "culprit/bisect/store_measurer.hpp"
#include "culprit/bisect/versions.hpp"
#include "culprit/common/json.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

// `git bisect run` reads 0 as good, 1..127 except 125 as bad, 125 as skip, and aborts the
// bisection above 127: anything that is not a judgement of this commit must abort it.
constexpr int kGood = 0;
constexpr int kBad = 1;
constexpr int kSkip = 125;
constexpr int kAbort = 128;

struct VerdictOptions {
  CommonOptions common;
  std::string manifest;
  std::string cache;
  std::string checkout;
  bool force = false;
};

int judge_checkout(const VerdictOptions& o) {
  const auto manifest = manifest::load_manifest(o.manifest);
  const std::string db_path = !o.common.db.empty()            ? o.common.db
                              : !manifest.settings.db.empty() ? manifest.settings.db
                                                              : "culprit.db";
  const std::string cache = o.cache.empty() ? db_path + ".builds" : o.cache;
  const std::string checkout = o.checkout.empty() ? bisect::git_repository(manifest) : o.checkout;
  auto versions = bisect::make_checkout_source(manifest, cache, checkout);
  auto db = storage::open_store(db_path);
  launch::ExecuteOptions execute;
  execute.force = o.force;
  execute.launch = launch::detect_launch_environment(manifest.settings.launch);
  bisect::StoreMeasurer measurer(*db, manifest, *versions, execute);
  bisect::Options options;
  options.repetitions = manifest.settings.repetitions;
  options.max_repetitions = std::max(manifest.settings.max_repetitions, options.repetitions);
  options.alpha = manifest.settings.alpha;
  options.margin = manifest.settings.margin;

  try {
    measurer.samples(0, options.repetitions);
  } catch (const bisect::Untestable& e) {
    throw RunError("the baseline (good commit " + versions->names()[0] +
                   ") cannot be measured: " + std::string(e.what()));
  }
  std::string judgement;
  int code = kSkip;
  bisect::PairJudgement judged;
  try {
    judged = bisect::judge_pair(measurer, 0, 1, options);
    const auto v = judged.comparison.verdict;
    code = v == stats::Verdict::kRegressed      ? kBad
           : v == stats::Verdict::kInconclusive ? kSkip
                                                : kGood;
    judgement = stats::verdict_name(v);
  } catch (const bisect::Untestable& e) {
    judgement = "untestable";
    spdlog::warn("{} is untestable: {}", versions->names()[1], e.what());
  }
  const auto& c = judged.comparison;
  if (o.common.json) {
    Json::Object doc;
    doc["baseline"] = versions->names()[0];
    doc["candidate"] = versions->names()[1];
    doc["verdict"] = judgement;
    doc["exit"] = code;
    doc["n"] = judged.n;
    doc["shift_ms"] = c.shift;
    doc["relative"] = c.relative;
    doc["shift_ci_ms"] = c.has_ci ? Json(Json::Array{c.shift_lo, c.shift_hi}) : Json();
    std::cout << Json(doc).dump() << "\n";
  } else {
    std::cout << fmt::format("{} against {}: {} ({:+.2f} ms, {:+.1f} %, n={}) -> {}\n",
                             versions->names()[1], versions->names()[0], judgement, c.shift,
                             100 * c.relative, judged.n,
                             code == kBad    ? "bad"
                             : code == kGood ? "good"
                                             : "skip");
  }
  return code;
}

}  // namespace

void register_verdict(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "verdict", "Judge the current checkout against a stored baseline (for git bisect run)");
  auto o = std::make_shared<VerdictOptions>();
  command->add_option("MANIFEST", o->manifest, "The manifest whose [bisect] git table to use")
      ->required();
  add_json_flag(*command, o->common);
  add_db_option(*command, o->common);
  command->add_option("--checkout", o->checkout,
                      "The checkout to judge (default: the manifest's bisect.git.repo)");
  command->add_option("--cache", o->cache, "Worktrees and build logs (default: <db>.builds)");
  command->add_flag("--force", o->force,
                    "Use the database even though the manifest changed since it was started");
  command->callback([&outcome, o] {
    try {
      outcome.exit_code = judge_checkout(*o);
    } catch (const std::exception& e) {
      spdlog::error("{} (exit {}: abort the git bisection)", e.what(), kAbort);
      outcome.exit_code = kAbort;
    }
  });
}

}  // namespace culprit::cli
