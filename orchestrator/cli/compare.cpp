#include "command.hpp"

namespace culprit::cli {

void register_compare(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "compare", "Compare median step time of configurations: shift, CI, p-value, verdict");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("compare", "5"); });
}

}  // namespace culprit::cli
