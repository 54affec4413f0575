#include "command.hpp"

namespace culprit::cli {

void register_merge(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand("merge", "Merge shard databases into one, idempotently");
  auto options = std::make_shared<CommonOptions>();
  add_json_flag(*command, *options);
  add_db_option(*command, *options);
  command->callback([&outcome] { outcome.exit_code = not_implemented("merge", "4"); });
}

}  // namespace culprit::cli
