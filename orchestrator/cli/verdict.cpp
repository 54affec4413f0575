#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "culprit/bisect/bisector.hpp"
#include "culprit/bisect/git_verdict.hpp"
#include "culprit/bisect/manifest_options.hpp"
#include "culprit/bisect/store_measurer.hpp"
#include "culprit/bisect/versions.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/report/verdict_report.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct VerdictOptions {
  CommonOptions common;
  std::string manifest;
  std::string cache;
  std::string checkout;
  bool force = false;
};

int judge_checkout(const VerdictOptions& o) {
  const auto manifest = manifest::load_manifest(o.manifest);
  const std::string db_path = store_path(o.common, manifest.settings.db);
  const std::string cache =
      o.cache.empty() ? storage::store_folder(db_path, storage::StoreFolder::kBuilds) : o.cache;
  const std::string checkout = o.checkout.empty() ? bisect::git_repository(manifest) : o.checkout;
  auto versions = bisect::make_checkout_source(manifest, cache, checkout);
  auto db = storage::open_store(db_path);
  launch::ExecuteOptions execute;
  execute.force = o.force;
  execute.launch = launch::detect_launch_environment(manifest.settings.launch);
  bisect::StoreMeasurer measurer(*db, manifest, *versions, execute);
  const bisect::Options options = bisect::options_from(manifest.settings);

  try {
    measurer.samples(0, options.repetitions);
  } catch (const bisect::Untestable& e) {
    throw RunError("the baseline (good commit " + versions->names()[0] +
                   ") cannot be measured: " + std::string(e.what()));
  }
  report::VerdictReport r;
  r.baseline = versions->names()[0];
  r.candidate = versions->names()[1];
  r.exit = bisect::git_bisect::kSkip;
  try {
    const bisect::PairJudgement judged = bisect::judge_pair(measurer, 0, 1, options);
    r.comparison = judged.comparison;
    r.n = judged.n;
    r.exit = bisect::git_bisect::exit_code(r.comparison.verdict);
    r.verdict = stats::verdict_name(r.comparison.verdict);
  } catch (const bisect::Untestable& e) {
    r.verdict = "untestable";
    spdlog::warn("{} is untestable: {}", r.candidate, e.what());
  }
  print(report::verdict_document(r, o.common.format()));
  return r.exit;
}

}  // namespace

void register_verdict(CLI::App& app, Outcome& outcome) {
  const auto [command, o] = add_store_command<VerdictOptions>(
      app, "verdict", "Judge the current checkout against a stored baseline (for git bisect run)");
  command->add_option("MANIFEST", o->manifest, "The manifest whose [bisect] git table to use")
      ->required();
  command->add_option("--checkout", o->checkout,
                      "The checkout to judge (default: the manifest's bisect.git.repo)");
  command->add_option("--cache", o->cache, "Worktrees and build logs (default: <db>.builds)");
  command->add_flag("--force", o->force,
                    "Use the database even though the manifest changed since it was started");
  command->callback([&outcome, o = o] {
    try {
      outcome.exit_code = judge_checkout(*o);
    } catch (const std::exception& e) {
      spdlog::error("{} (exit {}: abort the git bisection)", e.what(), bisect::git_bisect::kAbort);
      outcome.exit_code = bisect::git_bisect::kAbort;
    }
  });
}

}  // namespace culprit::cli
