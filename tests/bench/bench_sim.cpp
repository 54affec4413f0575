// Scale of the simulated cluster: simulate + write the run file, ingest it into a fresh results
// store (as `culprit run` does) and explain it (blind attribution of the run file, as
// `culprit attribute --run-file` does) for 64, 1,024 and 16,384 ranks x 50 steps, each size in
// its own forked process so peak memory is that size's alone.
//   bench_sim [RANKS...] [--dir FOLDER] [--keep]
// Prints one row per size: events, simulate s, write s, ingest s, explain s, total s, peak MiB,
// events/s and the culprit found (the injection is a 30 ms delay in the last rank's wgrad GEMM).
// The budget for 16,384 ranks: simulated, stored and explained in <= 60 s, <= 4 GiB.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "culprit/analysis/attribution.hpp"
#include "culprit/launch/record_run.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "sim/run_file.hpp"
#include "sim/simulator.hpp"

namespace {

using namespace culprit;

// Stores the run file in a fresh results store as the launcher does (copy, step times and the
// run's median in one transaction). Returns the events copied; throws when the ingest failed.
std::int64_t ingest_run_file(const std::string& run_file, const std::string& store_path) {
  auto store = storage::open_store(store_path);
  storage::ExperimentRecord experiment;
  experiment.name = "bench-sim";
  experiment.manifest_hash = "bench";
  const std::int64_t experiment_id = storage::insert_experiment(*store, experiment);
  storage::ConfigurationRecord config;
  config.label = "baseline";
  config.backend = "sim";
  config.resolved_json = "{}";
  config.config_hash = "bench";
  const std::int64_t config_id = storage::ensure_configuration(*store, experiment_id, config);
  const std::int64_t run_id =
      storage::ensure_run(*store, experiment_id, {config_id, 0}, 0, 1, "").id;
  const launch::RecordOutcome outcome =
      launch::record_run(*store, run_id, run_file, storage::RunFinish{});
  if (!outcome.ok) throw std::runtime_error("ingest of " + run_file + ": " + outcome.error);
  return outcome.events;
}

// Explains the run file just written: load, align clocks, match collectives, attribute every
// step and name the run's culprit (storage::load_run_file + analysis::attribute_run).
analysis::RunAttribution explain_run_file(const std::string& path) {
  const storage::RunData run = storage::load_run_file(path);
  return analysis::attribute_run(run);
}

std::string describe(const analysis::RunCulprit& c) {
  if (!c.found) return "none";
  return "rank " + std::to_string(c.rank) + " " + c.phase + " L" + std::to_string(c.layer) + " +" +
         std::to_string(static_cast<int>(c.excess_ms + 0.5)) + "ms";
}

// 16 events per rank and step (4 fwd, 4 dgrad, 4 wgrad, 2 all-reduces, optimizer, step),
// so 16,384 ranks x 50 steps is 13.1 M events.
stepmodel::RunConfig scale_config(int ranks) {
  stepmodel::RunConfig c;
  c.experiment = "bench-sim";
  c.backend = "sim";
  c.seed = 16384;
  c.ranks = ranks;
  c.warmup_steps = 2;
  c.steps = 48;
  auto& m = c.model;
  m.layers = 4;
  m.microbatches = 1;
  m.buckets = 2;
  m.tokens = 4096;
  m.hidden = 8192;
  m.dtype = "bf16";
  m.compute = "sleep";
  m.flops_per_s = 1.475e14;
  m.mem_bytes_per_s = 1.68e11;
  m.link_bytes_per_s = 1.32e11;
  m.hop_latency_us = 1.0;
  m.noise_cv = 0.02;
  m.run_cv = 0.01;
  m.spike_prob = 1e-5;
  m.spike_ms = 20;
  stepmodel::DelayInjection d;
  d.rank = ranks - 1;
  d.phase = "gemm.bwd.wgrad";
  d.layer = 0;
  d.ms = 30;
  c.inject.delays.push_back(d);
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Peak resident memory of this process (VmHWM), MiB.
double peak_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void remove_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void run_one(int ranks, const std::string& dir, bool keep) {
  const std::string path = dir + "/bench-sim-" + std::to_string(ranks) + ".db";
  const std::string store_path = dir + "/bench-sim-" + std::to_string(ranks) + ".store.db";
  remove_store(store_path);
  const stepmodel::RunConfig config = scale_config(ranks);
  const auto start = std::chrono::steady_clock::now();
  sim::SimulatedRun run = sim::simulate(config);
  const double simulate_s = seconds_since(start);
  const std::size_t events = run.events.size();
  const auto write_start = std::chrono::steady_clock::now();
  stepclock::write_run_file(path,
                            sim::to_run_file(std::move(run), config, "{}", {"bench_sim", "bench"}));
  const double write_s = seconds_since(write_start);
  const auto ingest_start = std::chrono::steady_clock::now();
  const std::int64_t stored = ingest_run_file(path, store_path);
  const double ingest_s = seconds_since(ingest_start);
  if (stored != static_cast<std::int64_t>(events))
    throw std::runtime_error("stored " + std::to_string(stored) + " events of " +
                             std::to_string(events));
  const auto explain_start = std::chrono::steady_clock::now();
  const analysis::RunAttribution attribution = explain_run_file(path);
  const double explain_s = seconds_since(explain_start);
  const double total_s = seconds_since(start);
  const double file_mib = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
  std::printf("%8d %11zu %10.2f %9.2f %9.2f %10.2f %9.2f %10.0f %10.0f %12.3g  %s\n", ranks, events,
              simulate_s, write_s, ingest_s, explain_s, total_s, peak_mib(), file_mib,
              static_cast<double>(events) / total_s, describe(attribution.culprit).c_str());
  std::fflush(stdout);
  if (!keep) {
    std::filesystem::remove(path);
    remove_store(store_path);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  std::string dir = std::filesystem::temp_directory_path().string();
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--keep") {
      keep = true;
    } else {
      sizes.push_back(std::atoi(arg.c_str()));
    }
  }
  if (sizes.empty()) sizes = {64, 1024, 16384};
  std::filesystem::create_directories(dir);
  std::printf(
      "simulate + write run file + ingest into a store + explain, 50 steps, layers=4 "
      "microbatches=1 buckets=2 (%s)\n",
      dir.c_str());
  std::printf("%8s %11s %10s %9s %9s %10s %9s %10s %10s %12s  %s\n", "ranks", "events",
              "simulate_s", "write_s", "ingest_s", "explain_s", "total_s", "peak_MiB", "file_MiB",
              "events/s", "culprit");
  std::fflush(stdout);
  int failures = 0;
  for (int ranks : sizes) {
    const pid_t child = fork();
    if (child == 0) {
      try {
        run_one(ranks, dir, keep);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_sim: %d ranks: %s\n", ranks, e.what());
        std::_Exit(1);
      }
      std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
