#include "subcommand.hpp"

namespace culprit::cli {

void add_json_flag(CLI::App& command, CommonOptions& options) {
  command.add_flag("--json", options.json, "Print one JSON document on stdout (logs go to stderr)");
}

void add_db_option(CLI::App& command, CommonOptions& options) {
  command.add_option("--db", options.db,
                     "SQLite database (default: the manifest's experiment.db, else culprit.db)");
}

}  // namespace culprit::cli
