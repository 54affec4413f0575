#pragma once
// `culprit import --attach RUN[:RANK]`: evidence about a stored run (Nsight Compute kernel
// counters, GPU telemetry) stored beside it for one rank. Every file is read whole before
// anything is stored; steps, events and attribution are never changed.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "culprit/storage/db.hpp"

namespace culprit::analysis {

struct AttachTarget {
  std::int64_t run_id = 0;
  std::optional<int> rank;  // default: the run's blamed rank
};
// "12" or "12:3"; UsageError otherwise.
AttachTarget parse_attach_target(const std::string& text);

struct AttachSummary {
  std::int64_t run_id = 0;
  int rank = -1;
  std::string phase;  // --phase, or "" when matched per kernel
  std::int64_t kernels = 0, launches = 0, metrics = 0;
  std::vector<std::pair<std::string, std::string>> kernel_phases;  // (kernel, phase or "")
  std::vector<std::string> warnings;
  // Telemetry only (`launches` holds the samples stored):
  bool telemetry = false;
  std::string gpu_rule;                // how GPUs were mapped to ranks (GpuRanks::rule)
  std::vector<std::string> gpu_ranks;  // "rank 3: host a GPU 3 (how)" per rank with samples
  std::int64_t outside = 0;            // samples left out: outside the run's steps
  std::int64_t unmapped = 0;           // samples left out: a GPU that served no rank
};

AttachSummary attach_ncu(storage::Db& store, const std::vector<std::string>& files,
                         const AttachTarget& target, const std::string& phase);

// The rank a stored run blames (attribution of its events); UsageError when it blames nobody.
int blamed_rank(storage::Db& store, std::int64_t run_id);
// The run's phase a kernel belongs to, by name ("" when none matches): the phase whose name
// the kernel's base name (namespaces, template arguments and parameters left out) contains,
// or that contains it.
std::string matching_phase(const std::string& kernel, const std::vector<std::string>& phases);

}  // namespace culprit::analysis

namespace culprit::analysis {

struct TelemetryAttach {
  std::string format;    // dcgm | nvidia-smi | nvml-csv
  std::string gpu_rank;  // GPU=RANK,...; empty: from the run's provenance (gpu_ranks.hpp), or
                         // --attach's rank for a file of one GPU
  std::string host;      // the host a file without host names was taken on; empty: the run's
                         // one host
  std::string start;     // ISO-8601 time of the first sample, for formats without timestamps
  double period_ms = 0;  // between samples, with `start`
};

// Stores the SM clock, power, utilisation, ... samples of telemetry files for the run's ranks
// (run_telemetry), each placed on the run's aligned clock (Unix time - meta unix_offset_ns);
// samples outside the run's steps, or of a GPU that served no rank, are left out with a warning.
// UsageError, nothing stored, for a file without timestamps and no --start/--period-ms, a run
// without unix_offset_ns, no sample inside the run, a GPU no rule can place.
AttachSummary attach_telemetry(storage::Db& store, const std::vector<std::string>& files,
                               const AttachTarget& target, const TelemetryAttach& options);

}  // namespace culprit::analysis
