#pragma once
// The mapping rules shared by every trace format (docs/importers.md): records -> steps,
// phases (nested regions flattened to the innermost label that holds the time), collectives
// (matched across ranks by identifiers, never by timestamps) and per-rank clock models.

#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/common/kernels.hpp"
#include "culprit/importers/records.hpp"

namespace culprit::importers {

// ---- steps -------------------------------------------------------------------------------
// "ProfilerStep#N" -> N (kept as the step number, even where torch 1.13 labels loop
// iteration i as #(i-1)).
std::optional<int> profiler_step_number(std::string_view name);

struct StepRule {
  // A label matching this ECMAScript regex is a step; its first capture group, when it is a
  // number, is the step number, else steps are numbered in order from 0.
  std::string pattern = R"(^ProfilerStep#(\d+)$)";
};

struct StepSpan {
  int step = 0;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

struct RankSteps {
  std::vector<StepSpan> steps;  // by begin
  std::int64_t main_thread = 0;
  bool whole_capture = false;  // no step marker: the whole capture is one step 0
};

RankSteps find_steps(RankTrace& trace, const StepRule& rule);
// The step whose span holds `t`, -1 when none.
int step_at(const RankSteps& steps, std::int64_t t);

// A name that is an operator, not a label, in a trace without categories (legacy, emit_nvtx):
// a namespace ("aten::mm") or an autograd node ("AddmmBackward0").
bool looks_like_operator(std::string_view name);

// ---- collectives --------------------------------------------------------------------------
// A name that enqueues a collective on the calling thread (c10d::allreduce_, nccl:all_reduce
// on the CPU, MPI_Allreduce NVTX ranges).
bool is_collective_call(std::string_view name);
// A name that executes a collective (gloo:all_reduce on a worker thread; on a device every
// kernel the kernel table calls a collective: ncclKernel_* / ncclDevKernel_*, multimem_*,
// one-shot/two-shot custom all-reduce).
bool is_collective_work(std::string_view name);

struct RankCollective {
  int step = -1;
  int ordinal = 0;                    // index within the step on this rank (call order)
  std::int64_t arrival_ns = 0;        // call entry (CPU enqueue)
  std::int64_t completion_ns = 0;     // end of the work (or of the call without one)
  std::int64_t device_begin_ns = -1;  // start of the device work, -1 when none
  std::uint32_t name = 0;             // in the rank's names
  std::int64_t numel = -1;
  int elem_bytes = 0;
  std::int64_t seq = -1;
  std::int32_t group = -1;
  // False for a call whose work the trace does not hold although it records work (an async
  // enqueue such as gloo's c10d::allreduce_ returns before the collective completes): its
  // completion_ns is only the call's end, no tie for the clocks.
  bool completion_known = true;
};

// Pairs each call with its work (k-th call with k-th work of the same family, by start time)
// and numbers them within their step. Calls without work and work without calls stand alone.
std::vector<RankCollective> rank_collectives(RankTrace& trace, const RankSteps& steps);

// Gives every collective its cross-rank identity and renumbers `ordinal` so that the same
// collective has the same (step, ordinal) on every rank: the key is (process group, Seq) when
// every collective of every file has a Seq, else (step, process group, name, ordinal within the
// step, group and name). Numbers follow the first file's order. Timestamps play no part.
void assign_identities(const std::vector<RankTrace>& traces,
                       std::vector<std::vector<RankCollective>>& colls);

// Cross-rank identity of every collective: (step, ordinal) checked against the name, the
// element count and the trace's (process group, Seq) where present. A contradiction throws
// culprit::UsageError naming both files; with `partial` it is a warning and the collective is
// listed in `dropped` (not stored). Collectives missing in some files are reported as warnings.
struct CollectiveCheck {
  std::vector<std::string> warnings;
  std::set<std::pair<int, int>> dropped;  // (step, ordinal)
};
CollectiveCheck check_collectives(const std::vector<RankTrace>& traces,
                                  const std::vector<std::vector<RankCollective>>& colls,
                                  bool partial);

// A partial import's collectives whose process group has members that were not imported, as
// (step, ordinal): the group's ranks from the trace (Kineto's pg_config), else the whole job.
// Attribution cannot decide who arrived last at those.
std::set<std::pair<int, int>> collectives_missing_members(
    const std::vector<RankTrace>& traces, const std::vector<std::vector<RankCollective>>& colls);

// Steps in which some rank holds a collective call without its execution although its trace
// records executions: the profiler stopped before the worker recorded the last one (a gloo
// execution still running at the window's end), or the trace is sampled. That call's completion,
// and so the rank's waiting in the step, is unknown: the step is left out of the run, with one
// warning per file naming the steps and counts.
std::set<int> steps_cut_short(const std::vector<RankTrace>& traces,
                              const std::vector<std::vector<RankCollective>>& colls,
                              std::vector<std::string>& warnings);

// ---- phases -------------------------------------------------------------------------------
struct Phase {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::uint32_t name = 0;  // the innermost label holding the time (or the top-level op)
  int step = -1;
  int occurrence = 0;  // index of this name's pieces within (rank, step)
};

// Flattens the main thread's nested regions into non-overlapping phases. Operators give their
// time to the label around them, and so does everything nested in an operator when the trace
// does not say a record's kind (legacy, NVTX). Time directly inside a label (no child op) from
// the start of a stretch that begins while a collective of the same step is in flight, up to its
// recorded completion, is waiting, not the label's work: it is left out (the collective holds
// it); a collective is waited for inside one label, the first such stretch's.
std::vector<Phase> flatten_phases(const RankTrace& trace, const RankSteps& steps,
                                  const std::vector<RankCollective>& collectives);

// The phase holding time `t` (binary search; phases sorted by begin), nullptr when none.
const Phase* phase_at(const std::vector<Phase>& phases, std::int64_t t);

// ---- GEMM FLOPs --------------------------------------------------------------------------
struct GemmTotals {
  std::int64_t kernels = 0;         // GEMM kernels (the kernel table's class)
  double ns = 0;                    // their time
  std::int64_t without_shapes = 0;  // ... whose launching GEMM operator recorded no shapes
  double shaped_ns = 0;             // time of those with shapes
  double flops = 0;                 // their operators' FLOPs, each operator once
};
// The GEMM kernels launched in steps from `first_steady_step` on, and their FLOPs from the
// shapes of the operators that launched them.
GemmTotals gemm_totals(const RankTrace& t, const RankSteps& steps, int first_steady_step);

// ---- clocks -------------------------------------------------------------------------------
struct RankClock {
  double offset_ns = 0;  // add to the rank's raw clock to get rank 0's
  double uncertainty_ns = 0;
  std::int64_t ref_ns = 0;
  int constraints = 0;  // collectives used
  bool contradicted = false;
};

// Per rank: the median difference of the completions of collectives every rank took part in
// with a known completion (they complete together: ties), clamped into the interval causality
// allows (no rank completes before the last arrival); the uncertainty is the worst tie's
// distance from it, within that interval (the interval's far end with fewer than 3 ties).
std::vector<RankClock> clock_models(const std::vector<std::vector<RankCollective>>& colls,
                                    const std::vector<RankSteps>& steps);

// ---- one job ------------------------------------------------------------------------------
// Refuses files that cannot be one job's, with --partial too: world sizes that differ, a process
// group (distributedInfo.pg_config) with other ranks, Kineto captures more than a second apart.
void check_one_job(const std::vector<RankTrace>& traces);

// Warns (first in `warnings`) when a rank's clock offset is a median step or more: its step
// numbers then name other iterations than rank 0's.
void check_step_numbers(const std::vector<RankTrace>& traces, const std::vector<RankSteps>& steps,
                        const std::vector<RankClock>& clocks, std::vector<std::string>& warnings);

}  // namespace culprit::importers
