#pragma once
// `culprit import`'s core: profiler traces (a Kineto or legacy JSON file per rank; an Nsight
// Systems export holding one rank or several) -> one run's contents in the run-file library's
// types. Nothing is written here: the store ingests the contents from memory
// (launch::import_into_store, storage::copy_run_contents), as the rows their run file would
// give. Every failure of the input throws culprit::UsageError naming the file (and the byte
// offset or table), before anything is stored.

#include <map>
#include <string>
#include <vector>

#include "culprit/importers/mapping.hpp"
#include "runfile/run_file.hpp"

namespace culprit::importers {

enum class Format { kAuto, kKineto, kLegacy, kNsys };

Format parse_format(const std::string& text);   // auto|kineto|legacy|nsys, else UsageError
RankBy parse_rank_by(const std::string& text);  // auto|process|device, else UsageError
const char* format_name(Format format);

struct ImportOptions {
  Format format = Format::kAuto;
  std::string experiment = "import";
  std::string label = "imported";
  // Recorded steps counted as warm-up (the profiler's own schedule has already left its
  // wait/warm-up iterations out, so the default keeps every recorded step).
  int warmup_steps = 0;
  bool partial = false;  // accept a subset of the job's ranks (the run is flagged partial)
  StepRule steps;        // which labels are steps (nsys NVTX ranges; ProfilerStep#N by default)
  RankBy rank_by = RankBy::kAuto;  // the ranks inside one Nsight Systems export
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

// Expands folders into their trace files (sorted by name), keeps files as given. A folder's
// small .json file without "traceEvents" (a config.json) is left out, said in `notes`; a folder
// without traces is refused with a hint (upper-case extensions, traces in a subfolder).
std::vector<std::string> expand_inputs(const std::vector<std::string>& paths, Format format,
                                       std::vector<std::string>* notes = nullptr);

// Reads one file (gzip is recognised by its magic bytes) into records: a JSON trace is one
// rank; an Nsight Systems export comes back whole, every rank in it (read_traces splits it).
RankTrace read_trace(const std::string& path, Format format);

// Reads `files` (in parallel, one thread per core), in their order, a file holding several ranks
// (Nsight Systems) split into one RankTrace per rank by `rank_by`; throws the first file's error
// in that order.
std::vector<RankTrace> read_traces(const std::vector<std::string>& files, Format format,
                                   RankBy rank_by = RankBy::kAuto);

// Reads every file, applies the mapping rules and assembles the run file's contents.
ImportedRun import_traces(const std::vector<std::string>& paths, const ImportOptions& options);

// Mapping only (the part after reading), for tests and fuzzing on in-memory traces.
ImportedRun build_run(std::vector<RankTrace> traces, const ImportOptions& options);

}  // namespace culprit::importers
