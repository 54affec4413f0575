#include "command.hpp"

namespace culprit::cli {

void register_runs(CLI::App& app, Outcome& outcome) {
  auto* command =
      app.add_subcommand("runs", "List the stored runs with their status and median step time");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("runs", "4"); });
}

}  // namespace culprit::cli
