#include "options.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

namespace synthetic {

std::optional<Options> parse_options(int argc, char** argv, int& exit_code) {
  CLI::App app{
      "culprit-step: synthetic data-parallel training steps with built-in timing (run under "
      "mpirun)"};
  Options options;
  app.add_option("--config", options.config_path,
                 "resolved configuration JSON (default: $CULPRIT_CONFIG)");
  app.add_option("--out", options.run_file, "run file to write (default: $CULPRIT_RUN_FILE)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e) == 0 ? 0 : 2;
    return std::nullopt;
  }
  auto from_env = [](std::string& value, const char* name) {
    const char* env = std::getenv(name);
    if (value.empty() && env != nullptr) value = env;
  };
  from_env(options.config_path, "CULPRIT_CONFIG");
  from_env(options.run_file, "CULPRIT_RUN_FILE");
  if (options.config_path.empty() || options.run_file.empty()) {
    std::cerr << "culprit-step: " << (options.config_path.empty() ? "--config" : "--out")
              << " is required (or set "
              << (options.config_path.empty() ? "CULPRIT_CONFIG" : "CULPRIT_RUN_FILE")
              << "); usage: mpirun -np N culprit-step --config FILE.json --out RUNFILE.db\n";
    exit_code = 2;
    return std::nullopt;
  }
  return options;
}

}  // namespace synthetic
