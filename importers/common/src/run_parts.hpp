#pragma once
// The parts build_run assembles an imported run from (private to importers/common): each rank's
// events (run_events.cpp) and the run's meta and configuration echo (run_meta.cpp).

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "culprit/importers/build_run.hpp"
#include "runfile/run_file.hpp"

namespace culprit::importers {

// The run file's event names, interned over every rank (a rank's own table indexes its names).
class GlobalNames {
 public:
  explicit GlobalNames(runfile::RunFileContents& c) : c_(c) {}
  // The run file keeps names on 16 bits: a 65,536th distinct name is refused (UsageError).
  std::uint16_t id(const std::string& name);

 private:
  runfile::RunFileContents& c_;
  std::map<std::string, std::size_t> index_;
};

// Device work counted by the kernel table's class, over every rank.
using ClassCounts = std::array<std::int64_t, static_cast<std::size_t>(KernelClass::kOther) + 1>;

// One rank's inputs to its events.
struct RankInput {
  std::int32_t rank = 0;  // the run's rank (index in rank order)
  RankTrace* trace = nullptr;
  const RankSteps* steps = nullptr;
  const std::vector<RankCollective>* collectives = nullptr;
};

// Device events are the compute events numbered from this in `microbatch` (meta
// device_microbatch_base).
int device_microbatch_base();

// Appends the rank's step, phase, collective and kernel events to `c`; counts its kernels into
// `summary.kernels` and `classes`, and warns of kernels outside every step.
void add_rank_events(const RankInput& in, GlobalNames& names, runfile::RunFileContents& c,
                     ImportSummary& summary, ClassCounts& classes);

// The job's communication backend: the file's own word, else the collectives' names (gloo:*,
// nccl*, MPI_*), else "unknown".
std::string job_backend(const RankTrace& first);

// What the run's meta and echo say beyond the summary.
struct RunFacts {
  int warmup_until = 0;    // the first measured step
  int steady = 0;          // measured steps
  std::string incomplete;  // meta incomplete_collectives: "step:seq ..."
  // meta steps_digest: hex SHA-256 of every rank's step events (rank, step, raw begin and end),
  // the capture's identity whatever its files are called
  std::string steps_digest;
  GemmTotals gemm;
};

// The run's meta (runfile::meta keys) and its configuration echo, the resolved configuration
// with an import section (stepmodel::to_json).
std::vector<std::pair<std::string, std::string>> import_meta(const ImportSummary& s,
                                                             const RunFacts& f);
std::string import_echo(const BuildOptions& o, const ImportSummary& s, const RunFacts& f);

}  // namespace culprit::importers
