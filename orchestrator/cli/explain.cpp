#include "command.hpp"

namespace culprit::cli {

void register_explain(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "explain", "Explain a median step-time change: components by rank and phase + unclassified");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("explain", "6"); });
}

}  // namespace culprit::cli
