#include "command.hpp"

namespace culprit::cli {

void register_run(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "run", "Run (or resume) every planned run of a manifest and store each step of each rank");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("run", "4"); });
}

}  // namespace culprit::cli
