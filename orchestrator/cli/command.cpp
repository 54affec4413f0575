#include "command.hpp"

#include <spdlog/spdlog.h>

namespace culprit::cli {

void add_json_flag(CLI::App& command, CommonOptions& options) {
  command.add_flag("--json", options.json, "Print one JSON document on stdout (logs go to stderr)");
}

void add_db_option(CLI::App& command, CommonOptions& options) {
  command.add_option("--db", options.db,
                     "SQLite database (default: the manifest's experiment.db, else culprit.db)");
}

int not_implemented(const std::string& name, const std::string& issue) {
  spdlog::error("'culprit {}' is not implemented yet (tracked in issue {}).", name, issue);
  return exit_code::kInternal;
}

}  // namespace culprit::cli
