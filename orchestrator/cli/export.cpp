#include "command.hpp"

namespace culprit::cli {

void register_export(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand("export", "Export per-step data as CSV or JSON");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("export", "4"); });
}

}  // namespace culprit::cli
