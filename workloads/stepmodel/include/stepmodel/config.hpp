#pragma once
// The resolved configuration of one run, as the orchestrator hands it to a workload
// (a JSON file; format in docs/schema.md, "Resolved configuration"). Both the synthetic
// workload and the simulator read exactly this, so one manifest drives either backend.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepmodel {

// One phase of a measured step schedule (model.schedule). `culprit reduce` writes these from a
// real run so that a model follows the shape of the user's job (its own region names, its
// collectives and their order) instead of layers x microbatches of GEMMs.
struct SchedulePhase {
  std::string name;         // an event name of the source run: "layer2", "gemm.fwd", "allreduce"
  bool collective = false;  // a synchronizing collective (else compute)
  int layer = -1;
  int microbatch = -1;
  int seq = -1;            // collectives: the sequence number within the step
  double ms = 0;           // compute: duration; collective: transfer time after the last arrival
  double gap_ms = 0;       // host time on the rank before the phase is issued
  std::int64_t bytes = 0;  // collectives: payload
  bool async = false;      // collectives: issued without waiting for completion (overlap)
  bool waits = false;      // compute: waits for outstanding asynchronous collectives first

  bool operator==(const SchedulePhase&) const = default;
};

struct ModelConfig {
  int layers = 4;
  int microbatches = 2;
  int tokens = 256;  // rows of each GEMM (tokens per microbatch per rank)
  int hidden = 256;  // GEMMs are tokens x hidden x hidden
  int buckets = 2;   // gradient buckets, all-reduced one collective each
  bool overlap = false;
  std::string dtype = "fp32";       // fp32 | fp64 (cpu); fp32 | fp16 | bf16 (cuda)
  std::string compute = "gemm";     // gemm: real arithmetic; sleep: wait the predicted duration
  double flops_per_s = 2.0e10;      // per-rank GEMM rate for compute="sleep" and the simulator
  double mem_bytes_per_s = 1.0e10;  // optimizer memory bandwidth for sleep and the simulator
  double compute_scale = 1.0;       // multiplies every GEMM's duration (a slower version)
  double peak_flops = 0.0;          // peak FLOP/s per device for MFU; 0 = unknown
  // Simulator only: ring all-reduce alpha-beta model and noise.
  double link_bytes_per_s = 1.0e10;
  double hop_latency_us = 5.0;
  double noise_cv = 0.0;    // per-phase lognormal jitter
  double run_cv = 0.0;      // run-to-run drift (one factor per run)
  double spike_prob = 0.0;  // chance per phase of a rare spike
  double spike_ms = 0.0;
  int threads = 1;  // BLAS threads per rank (cpu backend)
  // When not empty, the step is this list (compute = "sleep" on the cpu backend) and the GEMM
  // keys above (layers, microbatches, tokens, hidden, buckets, overlap) are not used.
  std::vector<SchedulePhase> schedule;
};

inline constexpr int kEveryRank = -1;

struct DelayInjection {
  int rank = 0;  // kEveryRank: the same delay on every rank (a typical shift, not a straggler)
  // gemm.fwd | gemm.bwd.dgrad | gemm.bwd.wgrad | allreduce | optimizer, or a model.schedule name;
  // with instrument "pmpi" a compute phase before an MPI call, "compute>MPI_Allreduce"
  // (stepmodel/pmpi_calls.hpp).
  std::string phase;
  // -1: every layer (for allreduce: the bucket index, -1 every bucket; for a pmpi phase: the
  // k-th call of that MPI function in the step, 0-based, -1 every call).
  int layer = -1;
  int microbatch = -1;
  int step_first = -1;  // absolute step indices (warm-up steps count); -1: unbounded
  int step_last = -1;
  double ms = 0.0;
  std::string mode = "sleep";  // sleep | spin | gpu

  bool operator==(const DelayInjection&) const = default;
};

struct SlowdownInjection {
  int rank = 0;
  double factor = 1.0;  // multiplies that rank's GEMM work/time

  bool operator==(const SlowdownInjection&) const = default;
};

struct ClockSkewInjection {
  int rank = 0;
  double offset_ms = 0.0;
  double drift_ppm = 0.0;

  bool operator==(const ClockSkewInjection&) const = default;
};

struct FaultInjection {
  int rank = 0;
  int step = 0;
  std::string kind = "abort";  // abort | hang

  bool operator==(const FaultInjection&) const = default;
};

struct Injections {
  std::vector<DelayInjection> delays;
  std::vector<SlowdownInjection> slowdowns;
  std::vector<ClockSkewInjection> clock_skews;
  std::vector<FaultInjection> faults;
};

// How the PMPI interposer cuts an unmodified program's timeline into steps: every `every`-th
// call of `call` on MPI_COMM_WORLD ends a step ("MPI_Pcontrol": MPI_Pcontrol(1) markers).
struct StepRule {
  std::string call = "MPI_Pcontrol";
  int every = 1;

  bool operator==(const StepRule&) const = default;
};

// A run imported from profiler traces (`culprit import`, docs/importers.md): where its events
// came from. Such a run has no step model of its own and nothing injected; the section's presence
// is what tells an import's configuration echo from a workload's.
struct ImportSection {
  std::string format;               // kineto | legacy | nsys
  std::string backend = "unknown";  // the job's communication backend: gloo | nccl | mpi | unknown
  bool partial = false;             // a subset of the job's ranks
  int world_size = 1;               // the job's ranks (partial: more than the run's)
  std::vector<std::string> files;   // the trace files, by run rank (a file may hold several)
};

struct RunConfig {
  std::string experiment;
  std::string config_label;
  int repetition = 0;
  std::uint64_t seed = 1;
  std::string backend = "cpu";  // cpu | cuda | sim
  int ranks = 1;
  int warmup_steps = 1;
  int steps = 10;  // measured steps after warm-up
  ModelConfig model;
  Injections inject;
  std::string instrument;  // "" (a workload with built-in timing) | "pmpi" (docs/pmpi.md)
  StepRule step_rule;      // with instrument "pmpi"
  // Set for an imported run only (backend is then cpu or cuda: where the traced job computed).
  std::optional<ImportSection> import;
};

// kChecked: a delay's phase must be one of this model's (delay_phase_names, or a pmpi phase with
// instrument "pmpi"). kAny: any name, as in the configuration of a program with its own command
// and region names (read back by the orchestrator, e.g. for the injection truth).
enum class PhaseNames { kChecked, kAny };

// Parses and validates a resolved configuration. Throws std::invalid_argument with the key
// and the reason when the JSON is malformed or a value is out of range.
RunConfig parse_run_config(const std::string& json_text, PhaseNames names = PhaseNames::kChecked);
// The phase names a delay may target under this model: the schedule's names, or the five
// phases of the GEMM step.
std::vector<std::string> delay_phase_names(const ModelConfig& model);
// Whether a delay of `phase` needs instrument "pmpi": a PMPI compute phase
// ("compute>MPI_Allreduce") that the model's measured schedule does not name. A run measured
// under the interposer, reduced (`culprit reduce`), keeps its phase names in the schedule that
// culprit-step or culprit-sim then replays, with no MPI program to interpose.
bool needs_pmpi(const ModelConfig& model, const std::string& phase);
// The text of the resolved configuration file at path (a workload echoes it into its run file);
// throws std::invalid_argument naming the path when it cannot be read.
std::string read_run_config_text(const std::string& path);
RunConfig load_run_config(const std::string& path);

// What to_json writes. kRun: everything, the file a workload reads. kConfiguration: without
// repetition and seed (one configuration's runs share it; the store keeps it with the
// configuration). kWorkload: also without experiment and config_label, what a configuration hash
// covers (what the workload does, not what it is called).
enum class JsonFields { kRun, kConfiguration, kWorkload };

// The canonical resolved JSON (keys sorted, no whitespace, shortest round-trip numbers) that
// parse_run_config reads back. Its bytes feed configuration hashes: they stay the same for the
// same configuration. An imported run's has an "import" object and no "model" (it has none).
std::string to_json(const RunConfig& config, JsonFields fields = JsonFields::kRun);
std::string to_json(const DelayInjection& delay);  // one entry of inject.delays

}  // namespace stepmodel
