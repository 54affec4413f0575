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
                  "auto (srun inside a Slurm allocation, mpirun outside), mpirun, srun or "
                  "torchrun; overrides [launch] launcher and CULPRIT_LAUNCHER")
      ->check(CLI::IsMember({"auto", "mpirun", "srun", "torchrun"}));
}

std::string store_path(const CommonOptions& options, const std::string& manifest_db) {
  if (!options.db.empty()) return options.db;
  if (!manifest_db.empty()) return manifest_db;
  return "culprit.db";
}

std::unique_ptr<storage::Db> open_existing(const CommonOptions& options) {
  return storage::open_existing_store(store_path(options));
}

namespace {

// Writes all of `text` to `path` (created or truncated); false when a write failed.
bool write_whole(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw UsageError("cannot write '" + path + "': check that its folder exists and is writable");
  out << text;
  out.close();
  return static_cast<bool>(out);
}

}  // namespace

void write_file(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto target = fs::status(path, ec);  // through a symlink
  if (fs::is_directory(target)) {
    throw UsageError("'" + path + "' is a folder: give a file name to write (-o FILE)");
  }
  if (fs::exists(target) && !fs::is_regular_file(target)) {
    // A device, FIFO or socket (/dev/stdout, a pipe): written in place, since renaming a
    // temporary file onto it would replace the device node with a regular file.
    if (!write_whole(path, text)) {
      throw OutputError("writing '" + path + "' failed (disk full?): what it got is incomplete");
    }
    return;
  }
  // A regular file is replaced whole (a reader never sees half of it); through a symlink, the
  // file it points to is replaced and the link kept.
  fs::path file = path;
  for (int hop = 0; hop < 40 && fs::is_symlink(fs::symlink_status(file, ec)); ++hop) {
    const fs::path to = fs::read_symlink(file, ec);  // a dangling link too: its target is made
    file = to.is_absolute() ? to : file.parent_path() / to;
  }
  const std::string temp = file.string() + ".tmp";
  const bool written = write_whole(temp, text);
  if (written) fs::rename(temp, file, ec);
  if (!written || ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    if (!written) {
      throw OutputError("writing '" + temp + "' failed (disk full?); '" + file.string() +
                        "' was left as it was");
    }
    throw UsageError("cannot replace '" + file.string() + "' (" + ec.message() +
                     "): check its folder");
  }
}

void print(const std::string& document) {
  std::cout << document;
}

}  // namespace culprit::cli
