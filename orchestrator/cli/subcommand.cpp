#include "subcommand.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "culprit/errors.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::cli {

void add_json_flag(CLI::App& command, CommonOptions& options) {
  command.add_flag("--json", options.json, "Print one JSON document on stdout (logs go to stderr)");
}

void add_db_option(CLI::App& command, CommonOptions& options) {
  command.add_option("--db", options.db,
                     "SQLite database (default: the manifest's experiment.db, else culprit.db)");
}

void add_store_options(CLI::App& command, CommonOptions& options) {
  add_json_flag(command, options);
  add_db_option(command, options);
}

void add_latest_experiment_option(CLI::App& command, std::string& experiment) {
  command.add_option("--experiment", experiment,
                     "Experiment name (default: the most recent one in the store)");
}

void add_launcher_option(CLI::App& command, std::string& launcher) {
  command
      .add_option("--launcher", launcher,
                  "auto (srun inside a Slurm allocation, mpirun outside), mpirun or srun; "
                  "overrides [launch] launcher and CULPRIT_LAUNCHER")
      ->check(CLI::IsMember({"auto", "mpirun", "srun"}));
}

std::string store_path(const CommonOptions& options, const std::string& manifest_db) {
  if (!options.db.empty()) return options.db;
  if (!manifest_db.empty()) return manifest_db;
  return "culprit.db";
}

std::unique_ptr<storage::Db> open_existing(const CommonOptions& options) {
  return storage::open_existing_store(store_path(options));
}

void write_file(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw UsageError("cannot write '" + temp + "': check that its folder exists and is writable");
    out << text;
    out.close();
    if (!out) throw UsageError("writing '" + temp + "' failed (disk full?)");
  }
  std::filesystem::rename(temp, path);
}

void print(const CommonOptions& options, const std::string& json, const std::string& text) {
  std::cout << (options.json ? json : text);
}

}  // namespace culprit::cli
