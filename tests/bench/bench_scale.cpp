// Scale of the analysis on the simulated cluster (issue 17). Per size, in its own forked process
// so peak memory is that size's alone: simulate + write the run file, ingest it into a fresh
// results store (as `culprit run` does), load the run back from the store and attribute it blind
// (what `culprit attribute RUN` and, per representative run, `culprit explain` do).
//   bench_scale [RANKS[xSTEPS]...] [--all] [--dir FOLDER] [--keep]
// Default rows: 64, 1,024 and 16,384 ranks x 50 steps; --all adds 131,072 ranks x 50 steps
// (minutes and ~8 GiB: never in CI, which builds the benchmarks without running them).
// Prints one row per size: events, simulate s, write s, ingest s, load s, attribute s, total s,
// CPU s, events/s, stored bytes per event, peak MiB (the largest phase's) and the culprit found,
// with `ok` when it is the injected one (a 30 ms delay in the last rank's wgrad GEMM of layer 0),
// and a line with each phase's own peak (the run file is written and the simulation freed before
// the store's part, as culprit-sim exits before `culprit run` ingests); then a least-squares fit of
// total wall and CPU seconds against events (slope, intercept, R^2). Asserts nothing timed; exits 1
// when a size fails or blames the wrong culprit. Issue 36's budget for 131,072 ranks x 50 steps:
// simulated, stored and attributed in <= 120 s,
// <= 8 GiB.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "culprit/analysis/attribution.hpp"
#include "culprit/launch/record_run.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/storage/db.hpp"
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

std::string describe(const analysis::RunCulprit& c) {
  if (!c.found) return "none";
  return "rank " + std::to_string(c.rank) + " " + c.phase + " L" + std::to_string(c.layer) + " +" +
         std::to_string(static_cast<int>(c.excess_ms + 0.5)) + "ms";
}

// The scenario of tests/data/bench/scale-16384.toml (bench_user_flow.sh runs it as a user would),
// its delay configuration at `ranks` x `steps`, the delay moved to the last rank. 16 events per
// rank and step (4 fwd, 4 dgrad, 4 wgrad, 2 all-reduces, optimizer, step), so 16,384 ranks x 50
// steps is 13.1 M events and 131,072 x 20 is 41.9 M.
stepmodel::RunConfig scale_config(int ranks, int steps) {
  const manifest::Plan plan =
      manifest::make_plan(manifest::load_manifest(CULPRIT_TEST_DATA "/bench/scale-16384.toml"));
  stepmodel::RunConfig c = plan.configs.at(1).run;
  c.ranks = ranks;
  c.steps = steps - c.warmup_steps;
  c.inject.delays.at(0).rank = ranks - 1;
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

// The peak since the last call (or the process start), then a new high-water mark begins:
// writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+), so each phase of a size
// shows its own peak.
double take_peak() {
  const double peak = peak_mib();
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  return peak;
}

// Peak resident MiB of each phase of one size.
struct PhasePeaks {
  double simulate = 0, write = 0, ingest = 0, load = 0, attribute = 0;
  double max() const { return std::max({simulate, write, ingest, load, attribute}); }
};

void remove_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// Bytes the event tables take in the store (SQLite's dbstat: the interned rows and the run's
// names, schema 4: packs of fixed-width columns), else the store's files.
double stored_bytes(const std::string& store_path) {
  try {
    storage::Db db(store_path, storage::Db::Mode::kReadOnly);
    storage::Statement stmt(db,
                            "SELECT sum(pgsize) FROM dbstat WHERE name IN ('run_event_packs', "
                            "'run_event_names')");
    if (stmt.step() && stmt.column_int(0) > 0) return static_cast<double>(stmt.column_int(0));
  } catch (const std::exception&) {
  }
  double bytes = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(store_path + suffix, ec);
    if (!ec) bytes += static_cast<double>(size);
  }
  return bytes;
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Size {
  int ranks = 0;
  int steps = 50;
};

// What a child sends back: events, total wall s, total CPU s, blamed correctly (1/0).
using Row = std::array<double, 4>;

Row run_one(const Size& size, const std::string& dir, bool keep) {
  const std::string name = std::to_string(size.ranks) + "x" + std::to_string(size.steps);
  const std::string path = dir + "/bench-scale-" + name + ".db";
  const std::string store_path = dir + "/bench-scale-" + name + ".store.db";
  remove_store(store_path);
  const stepmodel::RunConfig config = scale_config(size.ranks, size.steps);
  PhasePeaks peaks;
  take_peak();
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  sim::SimulatedRun run = sim::simulate(config);
  const double simulate_s = seconds_since(start);
  peaks.simulate = take_peak();
  const std::size_t events = run.event_count();
  const auto write_start = std::chrono::steady_clock::now();
  sim::write_run_file(path, run, config, "{}", {"bench_scale", "bench"});
  run = {};  // freed before the store's part, as culprit-sim exits before `culprit run` ingests
  const double write_s = seconds_since(write_start);
  peaks.write = take_peak();
  const auto ingest_start = std::chrono::steady_clock::now();
  const std::int64_t stored = ingest_run_file(path, store_path);
  const double ingest_s = seconds_since(ingest_start);
  peaks.ingest = take_peak();
  if (stored != static_cast<std::int64_t>(events))
    throw std::runtime_error("stored " + std::to_string(stored) + " events of " +
                             std::to_string(events));
  if (!keep) std::filesystem::remove(path);
  // Loaded back from the store and attributed blind, as `culprit attribute` and `explain` do.
  const auto load_start = std::chrono::steady_clock::now();
  analysis::RunAttribution attribution;
  double load_s = 0;
  {
    auto store = storage::open_existing_store(store_path);
    const storage::RunData data = storage::load_run(*store, 1);
    load_s = seconds_since(load_start);
    peaks.load = take_peak();
    const auto attribute_start = std::chrono::steady_clock::now();
    attribution = analysis::attribute_run(data);
    const double attribute_s = seconds_since(attribute_start);
    peaks.attribute = take_peak();
    const double total_s = seconds_since(start);
    const double cpu_s = cpu_seconds() - cpu_start;
    const analysis::RunCulprit& c = attribution.culprit;
    const bool correct =
        c.found && c.rank == size.ranks - 1 && c.phase == "gemm.bwd.wgrad" && c.layer == 0;
    const double bytes_per_event = stored_bytes(store_path) / static_cast<double>(events);
    std::printf(
        "%8d %5d %11zu %10.2f %8.2f %9.2f %7.2f %11.2f %8.2f %7.2f %10.3g %9.1f %9.0f  %s %s\n",
        size.ranks, size.steps, events, simulate_s, write_s, ingest_s, load_s, attribute_s, total_s,
        cpu_s, static_cast<double>(events) / total_s, bytes_per_event, peaks.max(),
        describe(c).c_str(), correct ? "ok" : "WRONG");
    std::printf(
        "%8s peak MiB by phase: simulate %.0f, write %.0f, ingest %.0f, load %.0f, "
        "attribute %.0f\n",
        "", peaks.simulate, peaks.write, peaks.ingest, peaks.load, peaks.attribute);
    std::fflush(stdout);
    if (!keep) remove_store(store_path);
    return {static_cast<double>(events), total_s, cpu_s, correct ? 1.0 : 0.0};
  }
}

// Least squares y = slope * x + intercept, with R^2.
void print_fit(const char* what, const std::vector<Row>& rows, std::size_t column) {
  if (rows.size() < 2) return;
  double sx = 0, sy = 0;
  for (const Row& r : rows) {
    sx += r[0];
    sy += r[column];
  }
  const double n = static_cast<double>(rows.size());
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (const Row& r : rows) {
    sxx += (r[0] - mx) * (r[0] - mx);
    sxy += (r[0] - mx) * (r[column] - my);
    syy += (r[column] - my) * (r[column] - my);
  }
  if (sxx <= 0) return;
  const double slope = sxy / sxx;
  const double intercept = my - slope * mx;
  const double r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  std::printf("fit %s = %.4g us/event x events %+.3f s, R^2 = %.4f (%zu sizes)\n", what,
              slope * 1e6, intercept, r2, rows.size());
}

Size parse_size(const std::string& arg) {
  Size size;
  const auto x = arg.find('x');
  size.ranks = std::atoi(arg.substr(0, x).c_str());
  if (x != std::string::npos) size.steps = std::atoi(arg.substr(x + 1).c_str());
  if (size.ranks <= 0 || size.steps < 8) {
    std::fprintf(stderr, "bench_scale: '%s' is not RANKS or RANKSxSTEPS (steps >= 8)\n",
                 arg.c_str());
    std::exit(2);
  }
  return size;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Size> sizes;
  std::string dir = std::filesystem::temp_directory_path().string();
  bool keep = false;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--keep") {
      keep = true;
    } else if (arg == "--all") {
      all = true;
    } else {
      sizes.push_back(parse_size(arg));
    }
  }
  if (sizes.empty()) sizes = {{64, 50}, {1024, 50}, {16384, 50}};
  if (all) sizes.push_back({131072, 50});
  std::filesystem::create_directories(dir);
  std::printf(
      "simulate + write run file + ingest into a store + load + attribute, layers=4 "
      "microbatches=1 buckets=2, 2 warm-up steps (%s)\n",
      dir.c_str());
  std::printf("%8s %5s %11s %10s %8s %9s %7s %11s %8s %7s %10s %9s %9s  %s\n", "ranks", "steps",
              "events", "simulate_s", "write_s", "ingest_s", "load_s", "attribute_s", "total_s",
              "cpu_s", "events/s", "B/event", "peak_MiB", "culprit");
  std::fflush(stdout);
  int failures = 0;
  std::vector<Row> rows;
  for (const Size& size : sizes) {
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) return 1;
    const pid_t child = fork();
    if (child == 0) {
      close(pipe_fd[0]);
      try {
        const Row row = run_one(size, dir, keep);
        if (write(pipe_fd[1], row.data(), sizeof(Row)) != static_cast<ssize_t>(sizeof(Row)))
          std::_Exit(1);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_scale: %d ranks: %s\n", size.ranks, e.what());
        std::_Exit(1);
      }
      std::_Exit(0);
    }
    close(pipe_fd[1]);
    Row row{};
    const bool got = read(pipe_fd[0], row.data(), sizeof(Row)) == static_cast<ssize_t>(sizeof(Row));
    close(pipe_fd[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || row[3] != 1.0) ++failures;
    if (got) rows.push_back(row);
  }
  print_fit("total wall s", rows, 1);
  print_fit("total CPU s", rows, 2);
  return failures == 0 ? 0 : 1;
}
