#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>

#include "culprit/build_info.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/interrupt.hpp"
#include "culprit/launch/launch_command.hpp"
#include "log_sink.hpp"
#include "subcommand.hpp"

namespace {

void print_version() {
  std::cout << "culprit " << culprit::build::kVersion << " (git " << culprit::build::kGitHash
            << ")\n"
            << "cuda backend: " << (culprit::build::kHaveCuda ? "yes" : "no")
            << ", nccl: " << (culprit::build::kHaveNccl ? "yes" : "no") << "\n";
  // Where this culprit finds its parts (relative to itself when installed).
  const auto env = culprit::launch::detect_launch_environment(
      [](const std::string& key) -> std::optional<std::string> {
        if (key == "CULPRIT_LAUNCHER" || key == "CULPRIT_BIND") return std::nullopt;
        const char* value = std::getenv(key.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
      });
  const auto or_none = [](const std::string& s) { return s.empty() ? "(not found)" : s; };
  std::cout << "workloads: " << or_none(env.workload_dir) << "\n"
            << "python module: " << or_none(env.python_module_dir) << "\n"
            << "pmpi library: " << or_none(env.pmpi_library) << "\n";
}

// Every result goes through stdout: a write that failed (full disk, /dev/full, a closed file)
// must not end with exit 0 and a truncated result.
int check_output(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return code;
  const int error = errno;
  spdlog::error(
      "cannot write the output to stdout ({}): the result is incomplete; free space or "
      "write it elsewhere",
      error != 0 ? std::strerror(error) : "write error");
  return culprit::cli::exit_code::kInternal;
}

int run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  return check_output(run(argc, argv));
}

namespace {

int run(int argc, char** argv) {
  // Results go to stdout; every log line goes to stderr so `--json` output stays parseable.
  spdlog::set_default_logger(culprit::cli::make_stderr_logger("culprit"));
  spdlog::set_pattern("culprit: %^%l%$: %v");

  CLI::App app{"culprit: find the software version and the rank that made a distributed job slow"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the version, git hash and compiled-in GPU support");
  app.add_flag_callback(
      "-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); },
      "Log debug details to stderr");

  culprit::cli::Outcome outcome;
  using namespace culprit::cli;
  for (auto reg : {register_plan, register_run, register_runs, register_compare, register_explain,
                   register_attribute, register_bisect, register_verdict, register_validate,
                   register_merge, register_export, register_import, register_reduce,
                   register_submit, register_report, register_why}) {
    reg(app, outcome);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : exit_code::kUsage;
  } catch (const culprit::Error& e) {
    // Interrupted (128 + signal), UsageError, RunError, NotReproduced, Inconclusive.
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return exit_code::kInternal;
  }
  if (version) {
    print_version();
    return exit_code::kOk;
  }
  if (app.get_subcommands().empty()) {
    std::cout << app.help();
    return exit_code::kUsage;
  }
  return outcome.exit_code;
}

}  // namespace
