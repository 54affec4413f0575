#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/report/plan_report.hpp"
#include "subcommand.hpp"

namespace culprit::cli {

void register_plan(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "plan", "Print the configurations and runs a manifest expands to, in execution order");
  auto options = std::make_shared<CommonOptions>();
  auto manifest_path = std::make_shared<std::string>();
  command->add_option("MANIFEST", *manifest_path, "The experiment manifest (TOML)")->required();
  add_json_flag(*command, *options);
  command->callback([&outcome, options, manifest_path] {
    // Planning writes nothing: no database, no files; a bad manifest throws UsageError (exit 2).
    const auto plan = manifest::make_plan(manifest::load_manifest(*manifest_path));
    print(report::plan_document(plan, options->format()));
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
