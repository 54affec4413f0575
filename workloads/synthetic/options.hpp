#pragma once
// Command line of culprit-step: --config FILE.json --out RUNFILE.db, falling back to the
// CULPRIT_CONFIG and CULPRIT_RUN_FILE environment variables.

#include <optional>
#include <string>

namespace synthetic {

struct Options {
  std::string config_path;
  std::string run_file;
};

// Returns the options, or nullopt after printing help/usage (exit code in `exit_code`).
std::optional<Options> parse_options(int argc, char** argv, int& exit_code);

}  // namespace synthetic
