#include "command.hpp"

namespace culprit::cli {

void register_attribute(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "attribute", "Attribute each step of one run: last arriver, first divergence, delay costs");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("attribute", "6"); });
}

}  // namespace culprit::cli
