// A stand-in workload for launcher tests: writes a run file with known step times (or fails
// in a chosen way) without MPI, so the launcher's paths can be tested in milliseconds.
//   culprit-fake-workload --out RUNFILE [--config F] [--ranks R] [--steps S] [--warmup W]
//                         [--step-ms MS] [--slow-rank K --slow-ms MS] [--events-per-step N]
//                         [--mode ok|hang|exit3|crash|nofile|badfile|incomplete]
// Under mpirun only rank 0 (OMPI_COMM_WORLD_RANK) writes the file.

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "stepclock/runfile.hpp"

namespace {

struct Options {
  std::string out;
  std::string mode = "ok";
  int ranks = 2;
  int steps = 4;
  int warmup = 1;
  double step_ms = 10;
  int slow_rank = -1;
  double slow_ms = 0;
  int events_per_step = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--out") o.out = value;
    if (key == "--mode") o.mode = value;
    if (key == "--ranks") o.ranks = std::stoi(value);
    if (key == "--steps") o.steps = std::stoi(value);
    if (key == "--warmup") o.warmup = std::stoi(value);
    if (key == "--step-ms") o.step_ms = std::stod(value);
    if (key == "--slow-rank") o.slow_rank = std::stoi(value);
    if (key == "--slow-ms") o.slow_ms = std::stod(value);
    if (key == "--events-per-step") o.events_per_step = std::stoi(value);
  }
  return o;
}

stepclock::RunFileContents contents(const Options& o) {
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd"};
  std::int64_t boundary = 1'000'000;
  const int last_step = o.mode == "incomplete" ? o.warmup : o.steps;
  for (int step = 0; step < last_step; ++step) {
    const auto base = static_cast<std::int64_t>(o.step_ms * 1e6);
    const auto slow = static_cast<std::int64_t>(o.slow_ms * 1e6);
    std::int64_t step_end = boundary;
    for (int rank = 0; rank < o.ranks; ++rank) {
      stepclock::EventRecord e;
      e.kind = stepclock::EventKind::kStep;
      e.rank = rank;
      e.step = step;
      e.begin_ns = boundary;
      e.end_ns = boundary + base + (rank == o.slow_rank ? slow : 0);
      step_end = std::max(step_end, e.end_ns);
      c.events.push_back(e);
      for (int k = 0; k < o.events_per_step; ++k) {
        stepclock::EventRecord g = e;
        g.kind = stepclock::EventKind::kCompute;
        g.name = 1;
        g.layer = k;
        g.end_ns = g.begin_ns + 1000;
        c.events.push_back(g);
      }
    }
    boundary = step_end;
  }
  // A rank that never finished the last step makes it incomplete.
  if (o.mode == "incomplete" && o.ranks > 1) {
    stepclock::EventRecord e;
    e.kind = stepclock::EventKind::kStep;
    e.rank = 0;
    e.step = last_step;
    e.begin_ns = boundary;
    e.end_ns = boundary + 1000;
    c.events.push_back(e);
  }
  for (int rank = 0; rank < o.ranks; ++rank)
    c.clocks.push_back({rank, "localhost", 0, 0, 0, 0, 0, 0, 10});
  c.meta = {{"backend", "fake"},
            {"ranks", std::to_string(o.ranks)},
            {"warmup_steps", std::to_string(o.warmup)},
            {"steps", std::to_string(o.steps)},
            {"source", "culprit-fake-workload"}};
  c.provenance.push_back({-1, "binding", "none"});
  c.config_json = "{}";
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::cout << "fake workload: mode " << o.mode << "\n";
  std::cerr << "fake workload stderr\n";
  if (o.mode == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
  if (o.mode == "exit3") return 3;
  if (o.mode == "crash") std::raise(SIGKILL);
  if (o.mode == "nofile") return 0;
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank && std::strcmp(rank, "0") != 0) return 0;
  if (o.mode == "badfile") {
    std::ofstream(o.out) << "this is not a run file";
    return 0;
  }
  stepclock::write_run_file(o.out, contents(o));
  return 0;
}
