// Scale of the simulated cluster: simulate + write the run file for 64, 1,024 and 16,384 ranks
// x 50 steps, each size in its own forked process so peak memory is that size's alone.
//   bench_sim [RANKS...] [--dir FOLDER] [--keep]
// Prints one row per size: events, simulate s, write s, explain s, total s, peak MiB, events/s.
// The budget for 16,384 ranks: simulated, stored and explained in <= 60 s, <= 4 GiB.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/run_file.hpp"
#include "sim/simulator.hpp"

namespace {

// Hook for the analysis engineer: explain the run file just written (load, align, match
// collectives, attribute) and return. Until it is wired, the column prints "n/a" and the
// total covers simulate + write only.
bool explain_run_file(const std::string& /*path*/) {
  return false;
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

void run_one(int ranks, const std::string& dir, bool keep) {
  const std::string path = dir + "/bench-sim-" + std::to_string(ranks) + ".db";
  const stepmodel::RunConfig config = scale_config(ranks);
  const auto start = std::chrono::steady_clock::now();
  sim::SimulatedRun run = sim::simulate(config);
  const double simulate_s = seconds_since(start);
  const std::size_t events = run.events.size();
  const auto write_start = std::chrono::steady_clock::now();
  stepclock::write_run_file(path,
                            sim::to_run_file(std::move(run), config, "{}", {"bench_sim", "bench"}));
  const double write_s = seconds_since(write_start);
  const auto explain_start = std::chrono::steady_clock::now();
  const bool explained = explain_run_file(path);
  const double explain_s = seconds_since(explain_start);
  const double total_s = seconds_since(start);
  const double file_mib = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
  char explain_text[32] = "n/a";
  if (explained) std::snprintf(explain_text, sizeof explain_text, "%.2f", explain_s);
  std::printf("%8d %11zu %10.2f %9.2f %10s %9.2f %10.0f %10.0f %12.3g\n", ranks, events, simulate_s,
              write_s, explain_text, total_s, peak_mib(), file_mib,
              static_cast<double>(events) / total_s);
  std::fflush(stdout);
  if (!keep) std::filesystem::remove(path);
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
  std::printf("simulate + write run file, 50 steps, layers=4 microbatches=1 buckets=2 (%s)\n",
              dir.c_str());
  std::printf("%8s %11s %10s %9s %10s %9s %10s %10s %12s\n", "ranks", "events", "simulate_s",
              "write_s", "explain_s", "total_s", "peak_MiB", "file_MiB", "events/s");
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
