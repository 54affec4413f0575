// culprit import's speed on the real traces: events read per second (read + inflate +
// tokenize + parse, and the whole import with the mapping rules and the run-file write).
// Basis of the comparison: the figure for HTA's trace load on these files, 27-37 k
// events/s (HTA itself cannot be installed here); the ratio printed is to 37 k events/s.
// usage: bench_import [TRACES_DIR] [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "culprit/importers/import.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kHtaEventsPerSecond = 37e3;

struct Case {
  std::string name;
  std::vector<std::string> files;
  bool partial;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const std::string traces = argc > 1 ? argv[1] : CULPRIT_TRACES_DIR;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::vector<Case> cases = {
      {"hta/nccl_parser_config (libkineto, 1 rank)",
       {traces + "/hta/nccl_parser_config/nccl_data.json.gz"},
       true},
      {"hta/trace_filter (libkineto, 2 ranks)",
       {traces + "/hta/trace_filter/sampled_rank-0.json.gz",
        traces + "/hta/trace_filter/sampled_rank-1.json.gz"},
       true},
      {"torch-ddp/ddp4 kineto (4 ranks)", {traces + "/torch-ddp/ddp4-matmul-layer1/kineto"}, false},
      {"torch-ddp/ddp4 legacy (4 ranks)", {traces + "/torch-ddp/ddp4-matmul-layer1/legacy"}, false},
      {"nsys/cloverleaf (sqlite)", {traces + "/nsys/cloverleaf-cuda.sqlite"}, false},
  };
  std::printf(
      "basis: HTA loads these traces at 27-37 k events/s (the issue's figure; HTA is not "
      "installable here); ratio = ours / 37 k events/s\n");
  std::printf("%-44s %9s %11s %13s %7s %13s %7s %8s %9s\n", "trace", "events", "read ms",
              "read ev/s", "x HTA", "import ev/s", "x HTA", "map ms", "write ms");
  const fs::path run_file = fs::temp_directory_path() / "bench_import.run";
  for (const Case& c : cases) {
    bool present = true;
    for (const auto& f : c.files) present = present && fs::exists(f);
    if (!present) {
      std::printf("%-44s (not found under %s)\n", c.name.c_str(), traces.c_str());
      continue;
    }
    culprit::importers::ImportOptions options;
    options.partial = c.partial;
    std::vector<double> read_s, import_s, map_s, write_s;
    std::int64_t events = 0;
    for (int i = 0; i < repeats; ++i) {
      const auto files = culprit::importers::expand_inputs(c.files, options.format);
      const auto t0 = Clock::now();
      std::vector<culprit::importers::RankTrace> ranks;
      events = 0;
      for (const auto& f : files) {
        ranks.push_back(culprit::importers::read_trace(f, options.format));
        events += ranks.back().events_read;
      }
      const auto t1 = Clock::now();
      const auto run = culprit::importers::build_run(std::move(ranks), options);
      const auto t_map = Clock::now();
      // as culprit import writes it: a scratch file handed to the store (no fsync)
      stepclock::write_run_file(run_file.string(), run.contents, stepclock::Durability::kScratch);
      const auto t2 = Clock::now();
      read_s.push_back(std::chrono::duration<double>(t1 - t0).count());
      map_s.push_back(std::chrono::duration<double>(t_map - t1).count());
      write_s.push_back(std::chrono::duration<double>(t2 - t_map).count());
      import_s.push_back(std::chrono::duration<double>(t2 - t0).count());
    }
    const double r = median(read_s), w = median(import_s);
    std::printf("%-44s %9lld %11.2f %13.0f %7.1f %13.0f %7.1f %8.2f %9.2f\n", c.name.c_str(),
                static_cast<long long>(events), r * 1e3, events / r,
                events / r / kHtaEventsPerSecond, events / w, events / w / kHtaEventsPerSecond,
                median(map_s) * 1e3, median(write_s) * 1e3);
  }
  std::error_code ignored;
  fs::remove(run_file, ignored);
  return 0;
}
