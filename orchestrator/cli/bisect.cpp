#include <spdlog/spdlog.h>

#include "culprit/bisect/bisector.hpp"
#include "culprit/bisect/manifest_options.hpp"
#include "culprit/bisect/store_measurer.hpp"
#include "culprit/bisect/versions.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/report/bisect_report.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct BisectOptions {
  CommonOptions common;
  std::string manifest;
  std::string cache;
  bool force = false;
  std::string launcher;  // --launcher: auto | mpirun | srun | torchrun
};

// One log line per finished run (bisection launches runs a few at a time).
class RunLog : public launch::ProgressSink {
 public:
  void on_run_end(const launch::RunProgress& p, const launch::RunReport& r) override {
    if (r.status == storage::RunStatus::kOk) {
      spdlog::info("run {} {} #{}: ok, median {:.3f} ms", r.run_id, p.config, p.repetition,
                   r.median_ms.value_or(0));
    } else {
      spdlog::warn("run {} {} #{}: {}: {}", r.run_id, p.config, p.repetition,
                   storage::to_text(r.status), r.error);
    }
  }
};

int exit_code_of(bisect::Status status) {
  switch (status) {
    case bisect::Status::kFound:
      return exit_code::kOk;
    case bisect::Status::kNotReproduced:
      return exit_code::kNotReproduced;
    case bisect::Status::kInconclusive:
      break;
  }
  return exit_code::kInconclusive;
}

}  // namespace

void register_bisect(CLI::App& app, Outcome& outcome) {
  auto* command =
      app.add_subcommand("bisect", "Find the first bad version between a good and a bad one");
  auto o = std::make_shared<BisectOptions>();
  command->add_option("MANIFEST", o->manifest, "The experiment manifest with a [bisect] section")
      ->required();
  add_store_options(*command, o->common);
  command->add_option("--cache", o->cache,
                      "Worktrees, build logs and build outcomes of git commits (default: "
                      "<db>.builds)");
  add_launcher_option(*command, o->launcher);
  command->add_flag("--force", o->force,
                    "Use the database even though the manifest changed since it was started");
  command->callback([&outcome, o] {
    const auto manifest = manifest::load_manifest(o->manifest);
    const std::string db_path = store_path(o->common, manifest.settings.db);
    const std::string cache =
        o->cache.empty() ? storage::store_folder(db_path, storage::StoreFolder::kBuilds) : o->cache;
    auto versions = bisect::make_version_source(manifest, cache);
    auto db = storage::open_store(db_path);
    launch::ExecuteOptions execute;
    execute.force = o->force;
    execute.launch = launch::detect_launch_environment(manifest.settings.launch, o->launcher);
    RunLog log;
    bisect::StoreMeasurer measurer(*db, manifest, *versions, execute, &log);
    const auto result =
        bisect::run_bisection(versions->names(), measurer, bisect::options_from(manifest.settings));

    report::BisectContext context;
    for (int i = 0; i < static_cast<int>(versions->names().size()); ++i) {
      context.details.push_back(versions->detail(i));
    }
    context.new_runs = measurer.new_runs();
    context.experiment = manifest.settings.name;
    print(report::bisect_document(result, context, o->common.format()));
    outcome.exit_code = exit_code_of(result.status);
  });
}

}  // namespace culprit::cli
