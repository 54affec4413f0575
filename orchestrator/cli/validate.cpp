#include "command.hpp"

namespace culprit::cli {

void register_validate(CLI::App& app, Outcome& outcome) {
  auto* command =
      app.add_subcommand("validate", "Score blind attribution against injected stragglers");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("validate", "6"); });
}

}  // namespace culprit::cli
