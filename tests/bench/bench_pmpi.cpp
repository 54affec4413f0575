// Overhead of the PMPI interposer per intercepted call: a tight loop of 8-byte MPI_Allreduce on
// 2 ranks, timed through MPI_Allreduce (interposed when libculprit_pmpi.so is preloaded) and
// through PMPI_Allreduce (never interposed) in interleaved blocks of the same process, so both
// see the same machine. Prints per-call times and the added time per call (median over the
// repetitions); the target is <= 1 us. Then the same on 1 rank, where the collective has no
// partner to wait for: the interposer's own CPU cost without the 2-rank latency's noise.
// Never gates CI.
// Run: bench_pmpi [LIBRARY]   (starts mpirun -np 2, then -np 1, with LD_PRELOAD=LIBRARY;
//      default: the library in ../lib beside this executable)

#include <malloc.h>
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stepclock/clock.hpp"

namespace {

constexpr int kCalls = 2'000;
constexpr int kRepetitions = 101;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename Allreduce>
double ns_per_call(Allreduce allreduce) {
  double in = 1.0;
  double out = 0.0;
  PMPI_Barrier(MPI_COMM_WORLD);
  const std::int64_t start = stepclock::monotonic_ns();
  for (int i = 0; i < kCalls; ++i) allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return static_cast<double>(stepclock::monotonic_ns() - start) / kCalls;
}

int launch(const char* self, const std::string& library, const char* ranks) {
  if (access(library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "bench_pmpi: %s not found: build culprit_pmpi or pass its path\n",
                 library.c_str());
    return 2;
  }
  const std::string preload = "LD_PRELOAD=" + library;
  std::vector<std::string> args = {"mpirun", "-np", ranks, "--bind-to", "none"};
  if (geteuid() == 0) args.emplace_back("--allow-run-as-root");
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) args.emplace_back("--oversubscribe");
  for (const char* x : {preload.c_str(), "CULPRIT_PMPI_EVENTS=1000000"}) {
    args.emplace_back("-x");
    args.emplace_back(x);
  }
  args.emplace_back(self);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    execvp(argv[0], argv.data());
    std::perror("bench_pmpi: mpirun");
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) {
    std::string self = argv[0];
    const std::string dir = self.substr(0, self.find_last_of('/') + 1);
    const std::string library = argc > 1 ? argv[1] : dir + "../lib/libculprit_pmpi.so";
    const int rc = launch(argv[0], library, "2");
    return rc != 0 ? rc : launch(argv[0], library, "1");
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* preload = std::getenv("LD_PRELOAD");
  const bool interposed = preload && std::string(preload).find("culprit_pmpi") != std::string::npos;
  std::vector<double> bare, wrapped, added;
  bare.reserve(kRepetitions);
  wrapped.reserve(kRepetitions);
  added.reserve(kRepetitions);
  ns_per_call(PMPI_Allreduce);  // warm up both paths
  ns_per_call(MPI_Allreduce);
  // Heap in use before and after the timed loops: the interposer allocates nothing while
  // recording (its buffer was preallocated at MPI_Init).
  const std::size_t heap_before = mallinfo2().uordblks;
  for (int r = 0; r < kRepetitions; ++r) {
    // Alternate which path goes first so that a drift in the machine hits both equally.
    const bool bare_first = r % 2 == 0;
    const double a = bare_first ? ns_per_call(PMPI_Allreduce) : ns_per_call(MPI_Allreduce);
    const double b = bare_first ? ns_per_call(MPI_Allreduce) : ns_per_call(PMPI_Allreduce);
    bare.push_back(bare_first ? a : b);
    wrapped.push_back(bare_first ? b : a);
    added.push_back(wrapped.back() - bare.back());
  }
  const std::size_t heap_after = mallinfo2().uordblks;
  if (rank == 0) {
    std::printf(
        "bench_pmpi: %d rank%s, 8-byte MPI_Allreduce, %d calls x %d interleaved "
        "repetitions%s\n",
        size, size == 1 ? " (no partner: the interposer's CPU cost)" : "s", kCalls, kRepetitions,
        interposed ? "" : " (WARNING: interposer not preloaded)");
    std::printf("  PMPI_Allreduce (bare)        median %9.1f ns/call (min %.1f)\n", median(bare),
                *std::min_element(bare.begin(), bare.end()));
    std::printf("  MPI_Allreduce (interposed)   median %9.1f ns/call (min %.1f)\n", median(wrapped),
                *std::min_element(wrapped.begin(), wrapped.end()));
    std::printf("  added by the interposer      median %9.1f ns/call (target <= 1000)\n",
                median(added));
    std::printf("  heap growth over %d interposed calls          %9lld bytes\n",
                kCalls * kRepetitions,
                static_cast<long long>(heap_after) - static_cast<long long>(heap_before));
    std::printf("  added, fastest blocks (min - min)   %9.1f ns/call\n",
                *std::min_element(wrapped.begin(), wrapped.end()) -
                    *std::min_element(bare.begin(), bare.end()));
  }
  MPI_Finalize();
  return 0;
}
