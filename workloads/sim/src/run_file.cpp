#include "sim/run_file.hpp"
#include "runfile/meta_keys.hpp"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "sim/clocks.hpp"
#include "stepmodel/schedule.hpp"

namespace sim {
namespace {

// Same text as culprit-step writes for a double.
std::string number_text(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace

std::string simulated_timestamp(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(kSimulatedStartUnixS + seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

stepclock::RunFileContents to_run_file(SimulatedRun&& run, const stepmodel::RunConfig& config,
                                       const std::string& config_json,
                                       const SimProvenance& provenance) {
  stepclock::RunFileContents c;
  c.names = std::move(run.names);
  c.events = std::move(run.events);
  c.clocks = std::move(run.clock_models);
  c.config_json = config_json;
  const std::int64_t run_ns = run.step_end_ns.empty() ? 0 : run.step_end_ns.back();
  const std::int64_t run_seconds = (run_ns + 999'999'999) / 1'000'000'000;
  namespace meta = runfile::meta;
  c.meta = {
      {meta::kBackend, "sim"},
      {meta::kRanks, std::to_string(config.ranks)},
      {meta::kWarmupSteps, std::to_string(config.warmup_steps)},
      {meta::kSteps, std::to_string(config.steps)},
      {meta::kModelFlopsPerStep, number_text(stepmodel::model_flops_per_step(config.model))},
      {meta::kParameterBytes, std::to_string(stepmodel::parameter_bytes(config.model))},
      {meta::kStartedAt, simulated_timestamp(0)},
      {meta::kFinishedAt, simulated_timestamp(run_seconds)},
      // The simulation's true time 0 (rank 0's raw kRawClockEpochNs) is started_at: telemetry
      // stamped from then on lands in its steps.
      {meta::kUnixOffsetNs,
       std::to_string(kSimulatedStartUnixS * 1'000'000'000 - kRawClockEpochNs)},
      {meta::kSource, "culprit-sim"},
  };
  // The keys culprit-step writes where they mean something for a simulation; no environment
  // is echoed, so the file depends only on the configuration and the command line.
  c.provenance = {
      {-1, "hosts", "sim"},
      {-1, "mpi_library", "sim"},
      {-1, "command_line", provenance.command_line},
      {-1, "binary_hash", provenance.binary_hash},
  };
  c.provenance.reserve(c.provenance.size() + static_cast<std::size_t>(config.ranks));
  for (int r = 0; r < config.ranks; ++r) c.provenance.push_back({r, "host", "sim"});
  return c;
}

std::string hash_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + " to hash it");
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      hash = (hash ^ static_cast<unsigned char>(buffer[i])) * 0x100000001b3ULL;
    }
    if (!in) break;
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace sim
