#include "command.hpp"

namespace culprit::cli {

void register_plan(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "plan", "Print the configurations and runs a manifest expands to, in execution order");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("plan", "4"); });
}

}  // namespace culprit::cli
