#pragma once
// One run's raw facts in memory, as analysis reads them: events with interned names and the
// per-rank clock models. Loaded from the results store (by run id) or straight from a run file.
// Blind by construction: RunData has no configuration echo (it holds the injection truth); only
// `culprit validate` reads that, through load_run_config_echo.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "culprit/storage/db.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {

using runfile::EventKind;  // the run file's one definition

// One event as analysis holds it: runfile::EventRecord without device and stream, so a
// 16,384-rank run's events take 48 bytes each in memory rather than 56.
struct Event {
  std::int64_t begin_ns = 0;  // raw local clock of `rank`
  std::int64_t end_ns = 0;
  std::int64_t bytes = 0;
  std::int32_t rank = 0;
  std::int32_t step = -1;
  std::int32_t microbatch = -1;
  std::int32_t layer = -1;
  std::int32_t seq = -1;
  std::uint16_t name = 0;  // index into RunData::names
  EventKind kind = EventKind::kCompute;
};

// The fields of runfile::ClockModel that alignment needs; |aligned(t) - truth| <= uncertainty_ns.
struct ClockModel {
  std::int32_t rank = 0;
  std::int64_t ref_ns = 0;
  double offset_ns = 0;
  double drift_ppm = 0;
  double uncertainty_ns = 0;
  double aligned(std::int64_t t) const { return runfile::aligned_ns(*this, t); }
};

struct RunData {
  std::int64_t run_id = 0;  // 0 when loaded from a run file
  int ranks = 0;
  // The job's rank id of each rank position (empty: position r is rank r). Stored events, clock
  // models and provenance carry the job's rank ids, which a partial import leaves sparse (ranks
  // 2 and 3 of a 4-rank job); in memory `Event::rank`, `clocks` and every per-rank vector of
  // the analysis are indexed by position 0..ranks-1, and what is shown says rank_id(position).
  std::vector<std::int32_t> rank_ids;
  int warmup_steps = 0;
  std::vector<std::string> names;
  std::vector<Event> events;       // ordered by (step, rank, begin_ns)
  std::vector<ClockModel> clocks;  // indexed by rank
  std::map<std::string, std::string> meta;
  // [rank][step]: how long the rank's stepping thread waited for a CPU while runnable inside
  // that step (its sched.step_wait_ns provenance; NaN: not recorded; empty: no rank recorded
  // it). A fact about the machine, not the truth of an injection: another process sharing a
  // rank's core shows here.
  std::vector<std::vector<double>> step_cpu_wait_ns;
  // [rank][step]: the part of that wait inside the collectives the stepping thread timed itself
  // (sched.step_collective_wait_ns; NaN or empty as above; empty also for writers that do not
  // time it: the PMPI interposer, the Python module, imports).
  std::vector<std::vector<double>> step_collective_wait_ns;

  int name_index(const std::string& name) const;  // -1 when absent
  // The job's rank id of a position (a negative position, "none", is returned as is).
  int rank_id(int position) const;
  // The position of the job's rank `id`; -1 when the run has no such rank.
  int position_of(int id) const;
  // "0..3", or the ids listed ("2, 3") when they are not 0..ranks-1: for messages.
  std::string rank_list() const;
};

// kStepsOnly loads only the `step` events (enough for step times; much less to read).
enum class EventSelection { kAll, kStepsOnly };

RunData load_run(Db& store, std::int64_t run_id, EventSelection selection = EventSelection::kAll);
RunData load_run_file(const std::string& path, EventSelection selection = EventSelection::kAll);

// A run's rank count (meta.ranks, else `ranks_fallback`) and warm-up steps (meta.warmup_steps,
// else 0), read as load_run reads them: std::invalid_argument names the run when either is not a
// whole number >= 0.
struct RunCounts {
  int ranks = 0;
  int warmup_steps = 0;
};
RunCounts load_run_counts(Db& store, std::int64_t run_id, int ranks_fallback);

// The resolved configuration a stored run echoed (stepmodel::parse_run_config reads it): the
// injection truth, for scoring only. "" when the run has none.
std::string load_run_config_echo(Db& store, std::int64_t run_id);

}  // namespace culprit::storage
