#pragma once
// Each subcommand lives in its own file and only parses, calls the core library and prints the
// document report/ renders for its result.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "culprit/report/document.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::cli {

namespace exit_code {
inline constexpr int kOk = 0;
inline constexpr int kInternal = 1;
inline constexpr int kUsage = 2;
inline constexpr int kNotReproduced = 3;
inline constexpr int kInconclusive = 4;
inline constexpr int kRunFailed = 5;
}  // namespace exit_code

// Filled by the subcommand that ran; main() returns `exit_code`.
struct Outcome {
  int exit_code = exit_code::kOk;
};

// Options every reporting subcommand shares.
struct CommonOptions {
  bool json = false;
  std::string db;  // --db PATH; empty: the manifest's experiment.db, else culprit.db

  // The one format the command's document is rendered in, chosen once from --json.
  report::Format format() const { return json ? report::Format::kJson : report::Format::kText; }
};

void add_json_flag(CLI::App& command, CommonOptions& options);
void add_db_option(CLI::App& command, CommonOptions& options);
// --json and --db together (every subcommand that reads or writes a store).
void add_store_options(CLI::App& command, CommonOptions& options);
// A subcommand that reads or writes a store: its options live in a shared `Args` (CLI11 keeps
// pointers into it; the callback keeps it alive) with a CommonOptions `common`, --json and --db
// already added.
template <class Args>
struct StoreCommand {
  CLI::App* command;
  std::shared_ptr<Args> args;
};
template <class Args>
StoreCommand<Args> add_store_command(CLI::App& app, const std::string& name,
                                     const std::string& description) {
  StoreCommand<Args> c{app.add_subcommand(name, description), std::make_shared<Args>()};
  add_store_options(*c.command, c.args->common);
  return c;
}
// The same, with the callback for a subcommand whose work either succeeds (exit 0) or throws
// (main() turns the error into the exit code): it runs `work` on the parsed options.
template <class Args>
StoreCommand<Args> add_store_command(CLI::App& app, Outcome& outcome, void (*work)(const Args&),
                                     const std::string& name, const std::string& description) {
  StoreCommand<Args> c = add_store_command<Args>(app, name, description);
  c.command->callback([&outcome, args = c.args, work] {
    work(*args);
    outcome.exit_code = exit_code::kOk;
  });
  return c;
}
// --experiment NAME, by default the most recent experiment in the store (explain, report).
void add_latest_experiment_option(CLI::App& command, std::string& experiment);
// --launcher auto | mpirun | srun | torchrun (run, bisect).
void add_launcher_option(CLI::App& command, std::string& launcher);

// The one rule for the store a subcommand uses: --db, else the manifest's experiment.db
// (`manifest_db`, relative to the working directory), else culprit.db.
std::string store_path(const CommonOptions& options, const std::string& manifest_db = "");
// The existing store of store_path(options); throws culprit::UsageError when it is missing.
std::unique_ptr<storage::Db> open_existing(const CommonOptions& options);

// Writes `text` to `path` through a temporary name and a rename: a reader never sees half a
// file. Throws culprit::UsageError saying why when it cannot be written.
void write_file(const std::string& path, const std::string& text);

// Prints a document on stdout as report/ rendered it (report::*_document: one format, the
// final newline and the escaping of control characters included).
void print(const std::string& document);

void register_plan(CLI::App& app, Outcome& outcome);
void register_run(CLI::App& app, Outcome& outcome);
void register_runs(CLI::App& app, Outcome& outcome);
void register_compare(CLI::App& app, Outcome& outcome);
void register_explain(CLI::App& app, Outcome& outcome);
void register_attribute(CLI::App& app, Outcome& outcome);
void register_bisect(CLI::App& app, Outcome& outcome);
void register_verdict(CLI::App& app, Outcome& outcome);
void register_validate(CLI::App& app, Outcome& outcome);
void register_merge(CLI::App& app, Outcome& outcome);
void register_export(CLI::App& app, Outcome& outcome);
void register_reduce(CLI::App& app, Outcome& outcome);
void register_import(CLI::App& app, Outcome& outcome);
void register_submit(CLI::App& app, Outcome& outcome);
void register_report(CLI::App& app, Outcome& outcome);
void register_why(CLI::App& app, Outcome& outcome);

}  // namespace culprit::cli
