#include "command.hpp"

namespace culprit::cli {

void register_bisect(CLI::App& app, Outcome& outcome) {
  auto* command =
      app.add_subcommand("bisect", "Find the first bad version between a good and a bad one");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("bisect", "5"); });
}

}  // namespace culprit::cli
