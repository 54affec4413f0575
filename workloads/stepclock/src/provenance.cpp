#include "provenance.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "stepclock/clock.hpp"
#include "stepclock/stepclock.hpp"

extern char** environ;

namespace stepclock {
namespace {

// CPUs this process may run on, as a compact list "0-3,6".
std::string cpu_binding() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "unknown";
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ',';
    out += std::to_string(cpu);
    if (last > cpu) out += '-' + std::to_string(last);
    cpu = last;
  }
  return out;
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw;
}

// FNV-1a 64 of the running binary: enough to tell two builds apart, not a security hash.
std::string binary_hash() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) return "unknown";
  std::uint64_t hash = 1469598103934665603ULL;
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), chunk.size());
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash ^= static_cast<unsigned char>(chunk[static_cast<std::size_t>(i)]);
      hash *= 1099511628211ULL;
    }
  }
  char text[32];
  std::snprintf(text, sizeof(text), "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<std::size_t>(length));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

CpuWaitSample sample_cpu_wait() {
  CpuWaitSample sample;
  sample.wall_ns = monotonic_ns();
  std::error_code error;
  long long wait = 0, cpu = 0;
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream in(task.path() / "schedstat");
    long long run_ns = 0, waited_ns = 0;
    if (!(in >> run_ns >> waited_ns)) continue;  // the thread ended, or no schedstat
    cpu += run_ns;
    wait += waited_ns;
    any = true;
  }
  if (!error && any) {
    sample.wait_ns = wait;
    sample.cpu_ns = cpu;
  }
  return sample;
}

long long thread_cpu_wait_ns() {
  std::ifstream in("/proc/thread-self/schedstat");
  long long run_ns = 0, waited_ns = 0;
  return in >> run_ns >> waited_ns ? waited_ns : -1;
}

KeyValues cpu_wait_provenance(const CpuWaitSample& start, const CpuWaitSample& end) {
  KeyValues out;
  if (start.wait_ns < 0 || end.wait_ns < 0 || end.wall_ns <= start.wall_ns) return out;
  // Threads that ended in between take their counts with them: never report less than zero.
  out.emplace_back("sched.wait_ns", std::to_string(std::max(0LL, end.wait_ns - start.wait_ns)));
  out.emplace_back("sched.cpu_ns", std::to_string(std::max(0LL, end.cpu_ns - start.cpu_ns)));
  out.emplace_back("sched.wall_ns", std::to_string(end.wall_ns - start.wall_ns));
  return out;
}

std::string iso8601_utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

KeyValues rank_provenance() {
  KeyValues out;
  out.emplace_back("host", host_name());
  out.emplace_back("pid", std::to_string(getpid()));
  out.emplace_back("binding", cpu_binding());
  for (char** env = environ; env && *env; ++env) {
    const std::string_view entry(*env);
    for (std::string_view prefix : {"OMPI_", "SLURM_", "NCCL_", "CUDA_"}) {
      if (entry.substr(0, prefix.size()) != prefix) continue;
      const std::size_t eq = entry.find('=');
      if (eq == std::string_view::npos) break;
      out.emplace_back("env." + std::string(entry.substr(0, eq)),
                       std::string(entry.substr(eq + 1)));
      break;
    }
  }
  return out;
}

KeyValues job_provenance(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int local_ranks = host_ranks(comm).size;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  // The busiest host decides: one oversubscribed host slows the whole job.
  double ranks_per_core = cores > 0 ? static_cast<double>(local_ranks) / cores : 0.0;
  double busiest = 0.0;
  MPI_Reduce(&ranks_per_core, &busiest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  KeyValues out;
  if (rank != 0) return out;
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", busiest);
  out.emplace_back("command_line", command_line());
  out.emplace_back("binary_hash", binary_hash());
  out.emplace_back("mpi_library", mpi_library_version());
  out.emplace_back("ranks_per_core", text);
  out.emplace_back("oversubscribed", busiest > 1.0 ? "true" : "false");
  // Open MPI reads its MCA parameters from OMPI_MCA_*; unset means its default policy
  // (busy polling, degraded to yielding when it detects oversubscription).
  const char* yield = std::getenv("OMPI_MCA_mpi_yield_when_idle");
  out.emplace_back("yield_mode",
                   yield ? std::string("mpi_yield_when_idle=") + yield : std::string("default"));
  return out;
}

}  // namespace stepclock
