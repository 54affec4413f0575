#include "command.hpp"

namespace culprit::cli {

void register_verdict(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "verdict", "Judge the current checkout against a stored baseline (for git bisect run)");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("verdict", "5"); });
}

}  // namespace culprit::cli
