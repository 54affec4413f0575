// culprit import's speed and memory on the real traces:
//   read   = read + inflate + tokenize + parse of every rank's file (importers::read_traces);
//   import = the whole `culprit import` (launch::import_into_store: read, the mapping rules,
//            the store's ingest with step times and its commit, into a store created before
//            the timing), whose parts are shown in CPU ms: read, map (importers::build_run)
//            and store (the rest: open, ingest, step times, commit).
// Each is timed on the wall clock and on the process's CPU clock (user + system of every
// thread: CLOCK_PROCESS_CPUTIME_ID). The machine this runs on is shared, so wall time is
// inflated by the others' load while CPU time is not (much); wall time also holds the store's
// fsyncs. The process's start (a few ms of dynamic linking) is not in these figures.
// xHTA: HTA's load time of the trace over the whole import's time, on the wall clock and on CPU
// time. HTA's time is the measurement where there is one (hta/nccl_parser_config: 2.83 s,
// issue 34), else the file's events at 37 k events/s (the figure for HTA's load rate,
// 27-37 k events/s; HTA itself cannot be installed here).
// peak/JSON: the import's peak memory over the trace's decompressed size (an Nsight Systems
// export: its file size). The import's peak memory is the `culprit import` process's peak
// resident set (run beside this program, as a user runs it) less that of the same command on the
// 30-event hta/cpu_only trace (the program, its libraries and the store's own pages).
// "written" is what the import wrote to files (the store's WAL, its checkpoint, SQLite's temporary
// files), from /proc/self/io's wchar: the store's 64 KiB pages make it large beside the data.
// usage: bench_import [TRACES_DIR] [repeats]
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "culprit/importers/import.hpp"
#include "culprit/importers/input.hpp"
#include "culprit/launch/import_run.hpp"
#include "culprit/storage/store.hpp"

namespace {

constexpr double kHtaEventsPerSecond = 37e3;

struct Case {
  std::string name;
  std::vector<std::string> files;
  bool partial;
  double hta_seconds = 0;  // HTA's measured load time of the trace, 0 where none was measured
};

// A point on both clocks: wall (steady) and the process's CPU time, in seconds.
struct Stamp {
  double wall;
  double cpu;
};

Stamp now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return {
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
      static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9};
}

struct Samples {
  std::vector<double> wall, cpu;
  void add(Stamp a, Stamp b) {
    wall.push_back(b.wall - a.wall);
    cpu.push_back(b.cpu - a.cpu);
  }
};

// Bytes this process has written through write(2)-like calls so far; -1 where /proc has no io.
long long bytes_written() {
  std::FILE* io = std::fopen("/proc/self/io", "r");
  if (!io) return -1;
  char key[64];
  long long value = -1, found = -1;
  while (std::fscanf(io, "%63s %lld", key, &value) == 2) {
    if (std::strcmp(key, "wchar:") == 0) found = value;
  }
  std::fclose(io);
  return found;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The peak resident memory (KiB) of `culprit import ARGS --db DB` run as its own process (argv,
// no shell), -1 when it cannot be run or fails.
long long culprit_peak_kib(const std::string& culprit, std::vector<std::string> args,
                           const std::string& db) {
  args.insert(args.begin(), {culprit, "import"});
  for (const char* a : {"--partial", "--db"}) args.emplace_back(a);
  args.push_back(db);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (rc != 0) return -1;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return usage.ru_maxrss;
}

// The import's own peak memory (KiB) for case `c`: the culprit process's peak less its peak
// importing the 30-event hta/cpu_only trace, each into a fresh store; -1 when either fails.
double import_peak_kib(const std::string& culprit, const std::string& traces, const Case& c,
                       const std::string& db) {
  namespace fs = std::filesystem;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
  const long long base = culprit_peak_kib(culprit, {traces + "/hta/cpu_only"}, db);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
  const long long peak = culprit_peak_kib(culprit, c.files, db);
  return base < 0 || peak < 0 ? -1 : static_cast<double>(peak - base);
}

// The bytes the parsers read: each JSON file inflated, an SQLite export as it is.
double decompressed_bytes(const std::vector<std::string>& files) {
  double total = 0;
  for (const std::string& f : files) {
    const bool json = f.ends_with(".json") || f.ends_with(".json.gz");
    total += json ? static_cast<double>(culprit::importers::read_input(f).size())
                  : static_cast<double>(std::filesystem::file_size(f));
  }
  return total;
}

struct Figures {
  std::int64_t events = 0;
  double json_bytes = 0;
  Samples read, map, import, store;
  std::vector<double> written;
  double peak_kib = -1;  // the culprit process's peak over its peak importing a 30-event trace
};

// One repetition of a case: read and map alone, then the whole import into the store.
bool measure_once(const Case& c, const std::string& db, Figures& fig) {
  culprit::importers::ImportOptions options;
  options.partial = c.partial;
  const auto files = culprit::importers::expand_inputs(c.files, options.format);
  if (fig.json_bytes == 0) fig.json_bytes = decompressed_bytes(files);
  const Stamp t0 = now();
  std::vector<culprit::importers::RankTrace> ranks =
      culprit::importers::read_traces(files, options.format);
  fig.events = 0;
  for (const auto& r : ranks) fig.events += r.events_read;
  const Stamp t1 = now();
  const auto run = culprit::importers::build_run(std::move(ranks), options);
  const Stamp t2 = now();
  fig.read.add(t0, t1);
  fig.map.add(t1, t2);
  const long long w0 = bytes_written();
  const Stamp s0 = now();
  const auto outcome = culprit::launch::import_into_store(db, c.files, options, {});
  const Stamp s1 = now();
  fig.written.push_back(static_cast<double>(bytes_written() - w0) / 1024);
  fig.import.add(s0, s1);
  fig.store.add({0, 0},
                {s1.wall - s0.wall - (t2.wall - t0.wall), s1.cpu - s0.cpu - (t2.cpu - t0.cpu)});
  if (outcome.summary.events_read == fig.events && outcome.stored.error.empty()) return true;
  std::fprintf(stderr, "%s: import_into_store read %lld events (read_trace %lld): %s\n",
               c.name.c_str(), static_cast<long long>(outcome.summary.events_read),
               static_cast<long long>(fig.events), outcome.stored.error.c_str());
  return false;
}

void print_header(int repeats) {
  std::printf(
      "xHTA = HTA's load time / ours (the whole import), on the wall clock and on CPU time; HTA's "
      "time: 2.83 s measured for hta/nccl_parser_config (issue 34), else events / 37 k events/s\n"
      "read = inflate+tokenize+parse; import = the whole `culprit import` (read, map, store); "
      "peak/JSON = the import's peak resident memory over the decompressed trace; medians of %d "
      "repeats\n",
      repeats);
  std::printf("%-42s %7s | %9s %9s | %9s %9s %6s %6s %6s | %7s %7s %7s %8s | %7s %6s\n", "trace",
              "events", "read/s", "read/s", "import/s", "import/s", "HTA", "xHTA", "xHTA", "read",
              "map", "store", "written", "JSON", "peak/");
  std::printf("%-42s %7s | %9s %9s | %9s %9s %6s %6s %6s | %7s %7s %7s %8s | %7s %6s\n", "", "",
              "wall", "cpu", "wall", "cpu", "s", "wall", "cpu", "cpu ms", "cpu ms", "cpu ms", "KB",
              "MB", "JSON");
}

void print_row(const Case& c, const Figures& f) {
  const auto ev = static_cast<double>(f.events);
  const double iw = median(f.import.wall), ic = median(f.import.cpu);
  const double hta = c.hta_seconds > 0 ? c.hta_seconds : ev / kHtaEventsPerSecond;
  const double peak = f.peak_kib < 0 ? -1 : f.peak_kib * 1024 / f.json_bytes;
  std::printf(
      "%-42s %7lld | %9.0f %9.0f | %9.0f %9.0f %6.2f %6.1f %6.1f | %7.2f %7.2f %7.2f %8.0f | %7.2f "
      "%6.2f\n",
      c.name.c_str(), static_cast<long long>(f.events), ev / median(f.read.wall),
      ev / median(f.read.cpu), ev / iw, ev / ic, hta, hta / iw, hta / ic, median(f.read.cpu) * 1e3,
      median(f.map.cpu) * 1e3, median(f.store.cpu) * 1e3,
      f.written.empty() ? -1.0 : median(f.written), f.json_bytes / 1e6, peak);
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const std::string traces = argc > 1 ? argv[1] : CULPRIT_TRACES_DIR;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::vector<Case> cases = {
      {"hta/nccl_parser_config (libkineto, 1 rank)",
       {traces + "/hta/nccl_parser_config/nccl_data.json.gz"},
       true,
       2.83},
      {"hta/trace_filter (libkineto, 2 ranks)",
       {traces + "/hta/trace_filter/sampled_rank-0.json.gz",
        traces + "/hta/trace_filter/sampled_rank-1.json.gz"},
       true},
      {"torch-ddp/ddp4 kineto (4 ranks)", {traces + "/torch-ddp/ddp4-matmul-layer1/kineto"}, false},
      {"torch-ddp/ddp4 legacy (4 ranks)", {traces + "/torch-ddp/ddp4-matmul-layer1/legacy"}, false},
      {"nsys/cloverleaf (sqlite)", {traces + "/nsys/cloverleaf-cuda.sqlite"}, false},
      {"nsys-multi/h100 (sqlite, 2 ranks in 1 file)",
       {traces + "/nsys-multi/h100_2gpu_1s.sqlite"},
       false},
      {"gpu-kineto/b200 (libkineto, rank 0 of 8)",
       {traces + "/gpu-kineto/b200_eager_trace.json.gz"},
       true},
  };
  print_header(repeats);
  const fs::path scratch = fs::temp_directory_path() / ("bench_import." + std::to_string(getpid()));
  fs::create_directories(scratch);
  const std::string db = (scratch / "bench.db").string();
  culprit::storage::open_store(db);  // created before the timing: an import is into a store
  const std::string culprit =
      (fs::read_symlink("/proc/self/exe").parent_path() / "culprit").string();
  const std::string mem_db = (scratch / "memory.db").string();
  // The memory first, while this process is small: a child's peak resident set starts at its
  // parent's when it execs (Linux keeps the larger at exec).
  std::vector<double> peaks;
  for (const Case& c : cases) peaks.push_back(import_peak_kib(culprit, traces, c, mem_db));
  int status = 0;
  for (const Case& c : cases) {
    bool present = true;
    for (const auto& f : c.files) present = present && fs::exists(f);
    if (!present) {
      std::printf("%-40s (not found under %s)\n", c.name.c_str(), traces.c_str());
      continue;
    }
    Figures fig;
    bool ok = true;
    for (int i = 0; i < repeats && ok; ++i) ok = measure_once(c, db, fig);
    fig.peak_kib = peaks[static_cast<std::size_t>(&c - cases.data())];
    if (!ok) {
      status = 1;
      break;
    }
    print_row(c, fig);
  }
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  return status;
}
