// culprit-sim: simulates one run of a resolved configuration and writes its run file.
//   culprit-sim --config FILE.json --out RUNFILE.db   (or CULPRIT_CONFIG / CULPRIT_RUN_FILE)
// Exit codes: 0 written, 2 bad usage or configuration, 3 injected abort fault, 1 otherwise.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/run_file.hpp"
#include "sim/simulator.hpp"
#include "sim/summary.hpp"
#include "stepmodel/config.hpp"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitInjectedAbort = 3;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

std::string join(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) line += ' ';
    line += argv[i];
  }
  return line;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void hang_forever(const stepmodel::FaultInjection& fault) {
  spdlog::warn("injected hang on rank {} at step {}: sleeping until killed", fault.rank,
               fault.step);
  for (;;) ::pause();
}

}  // namespace

int simulate_main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("culprit-sim"));
  CLI::App app{"culprit-sim: simulate one run of a resolved configuration, write its run file"};
  std::string config_path = env_or("CULPRIT_CONFIG", "");
  std::string out_path = env_or("CULPRIT_RUN_FILE", "");
  bool summary = false;
  app.add_option("--config", config_path, "resolved configuration JSON (env CULPRIT_CONFIG)");
  app.add_option("--out", out_path, "run file to write (env CULPRIT_RUN_FILE)");
  app.add_flag("--summary", summary,
               "print the run's true median step time and compute activity as JSON on stdout");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (config_path.empty() || (out_path.empty() && !summary)) {
    spdlog::error(
        "need --config FILE.json and --out RUNFILE.db (or CULPRIT_CONFIG and "
        "CULPRIT_RUN_FILE); see --help");
    return kExitUsage;
  }

  std::string json;
  stepmodel::RunConfig config;
  try {
    json = stepmodel::read_run_config_text(config_path);
    config = stepmodel::parse_run_config(json);
  } catch (const std::exception& e) {
    spdlog::error("{}: {}; fix the file or regenerate it with `culprit plan`", config_path,
                  e.what());
    return kExitUsage;
  }
  if (config.backend != "sim") {
    spdlog::info("{} names backend '{}'; simulating it anyway", config_path, config.backend);
  }
  if (auto fault = sim::triggered_fault(config)) {
    if (fault->kind == "hang") hang_forever(*fault);
    spdlog::error("injected abort on rank {} at step {}: no run file written", fault->rank,
                  fault->step);
    return kExitInjectedAbort;
  }

  try {
    auto start = std::chrono::steady_clock::now();
    sim::SimulatedRun run = sim::simulate(config);
    spdlog::info("simulated {} ranks x {} steps ({} events) in {:.2f} s", config.ranks,
                 config.warmup_steps + config.steps, run.event_count(), seconds_since(start));
    if (summary) {
      const sim::RunSummary s = sim::summarize(run, config);
      std::printf(
          "{\"median_step_ms\": %.3f, \"compute_time_share\": %.4f, "
          "\"sampled_compute_activity\": %.4f, \"samples_per_rank\": %d, \"events\": %zu}\n",
          s.median_step_ms, s.compute_time_share, s.sampled_compute_activity, s.samples_per_rank,
          run.event_count());
    }
    if (out_path.empty()) return 0;
    start = std::chrono::steady_clock::now();
    sim::SimProvenance provenance{join(argc, argv), sim::hash_file("/proc/self/exe")};
    sim::write_run_file(out_path, run, config, json, provenance);
    spdlog::info("wrote {} in {:.2f} s", out_path, seconds_since(start));
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  return 0;
}

// Nothing escapes main: an error the steps above do not catch (the logger, the command line
// itself) is said on stderr and is exit 1, never std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return simulate_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "culprit-sim: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "culprit-sim: an unknown error\n");
  }
  return 1;
}
