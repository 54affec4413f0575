#pragma once
// The mapping rules' result: every rank's records (RankTrace, whatever format they were read
// from) -> one run file's contents, written by the runfile library (culprit_runfile) like every
// other source of run files. Formats and files are the dispatcher's (importers/import); nothing
// here knows a format.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "culprit/importers/mapping.hpp"
#include "runfile/run_file.hpp"

namespace culprit::importers {

// What the mapping needs to be told: the run's names, warm-up, partial flag and step rule.
struct BuildOptions {
  std::string experiment = "import";
  std::string label = "imported";
  // Recorded steps counted as warm-up (the profiler's own schedule has already left its
  // wait/warm-up iterations out, so the default keeps every recorded step).
  int warmup_steps = 0;
  bool partial = false;  // accept a subset of the job's ranks (the run is flagged partial)
  StepRule steps;        // which labels are steps (nsys NVTX ranges; ProfilerStep#N by default)
};

struct ImportSummary {
  std::string format;
  std::string backend;  // the job's communication backend (gloo, nccl) or "unknown"
  int ranks = 0;
  int world_size = 0;
  int steps = 0;                 // steps every rank recorded
  std::int64_t events = 0;       // events stored in the run file
  std::int64_t events_read = 0;  // trace events read from the files
  std::int64_t kernels = 0;
  // Device work by the kernel table's class (gemm, attention, collective, memcpy, memset,
  // other), every kernel counted once; memcpy/memset also count the trace's copy records.
  std::map<std::string, std::int64_t> kernel_classes;
  std::int64_t collectives = 0;  // per-rank collective instances stored
  // Partial import: collectives (per step) whose process group has ranks not imported.
  std::int64_t incomplete_collectives = 0;
  bool partial = false;
  std::vector<std::string> files;  // by run rank
  // How ranks were told and numbered ("distributedInfo.rank", "file name", "the CUDA device
  // id (process 111, GPU 0)" ...): each rank's rule, the distinct ones joined by "; ".
  std::string rank_rule;
  std::vector<std::string> warnings;
};

struct ImportedRun {
  runfile::RunFileContents contents;
  ImportSummary summary;
};

// Applies the mapping rules to every rank's records and assembles the run file's contents
// (also for tests and fuzzing on in-memory traces). UsageError on traces that cannot be one job.
ImportedRun build_run(std::vector<RankTrace> traces, const BuildOptions& options);

}  // namespace culprit::importers
