#pragma once
// The interposer's per-process state and its hot path. Between MPI_Init and MPI_Finalize every
// intercepted call on the thread that initialized MPI goes through Recorder::enter/leave: two
// clock reads and two or three slots of stepclock's preallocated buffer; no allocation, no
// lock, no I/O. The interposer's own MPI traffic (clock sync, gathers) runs while `active_` is
// false, so it is never recorded.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

#include "calls.hpp"
#include "comms.hpp"
#include "delays.hpp"
#include "step_counter.hpp"
#include "stepclock/stepclock.h"

namespace culprit::pmpi {

class Recorder {
 public:
  // After PMPI_Init(_thread): reads the settings (CULPRIT_CONFIG, CULPRIT_RUN_FILE,
  // CULPRIT_PMPI_EVENTS), preallocates, syncs clocks. Errors are printed, recording stays off.
  void start(int thread_level);
  // Before PMPI_Finalize: second clock sync, rank 0 writes the run file.
  void finish();

  bool active() const { return active_ && t_main_thread; }
  CommTable& comms() { return comms_; }

  // Call entry: spends a due delay, then ends the compute phase that led here.
  std::int64_t enter(std::size_t call) {
    const int occurrence = next_occurrence(call);
    bool spin = false;
    if (const std::int64_t ns = delays_.due(call, occurrence, steps_.step(), spin); ns > 0) {
      spend(ns, spin);
    }
    const std::int64_t now = stepclock_now();
    record(STEPCLOCK_COMPUTE, compute_names_[call], occurrence, -1, 0, last_return_ns_, now);
    occurrence_now_ = occurrence;
    return now;
  }

  // Return of a collective on a known communicator.
  void leave_collective(std::size_t call, CommState& comm, std::int64_t entry_ns,
                        std::int64_t bytes) {
    const std::int64_t now = stepclock_now();
    const std::int32_t step = steps_.step();
    record(STEPCLOCK_COLLECTIVE, comm.names[call], -1, CommTable::next_seq(comm, step), bytes,
           entry_ns, now);
    last_return_ns_ = now;
    if (comm.world && call == rule_call_ && steps_.count()) boundary(now);
  }

  // Return of a point-to-point wait: a host event named after the call.
  void leave_wait(std::size_t call, std::int64_t entry_ns) {
    const std::int64_t now = stepclock_now();
    record(STEPCLOCK_HOST, call_names_[call], occurrence_now_, -1, 0, entry_ns, now);
    last_return_ns_ = now;
  }

  // MPI_Pcontrol(level): ends a compute phase; level 1 is a boundary under step_rule "pcontrol".
  void pcontrol(int level) {
    const std::int64_t now = enter(kPcontrol);
    last_return_ns_ = now;
    if (level == 1 && rule_call_ == kPcontrol && steps_.count()) boundary(now);
  }

 private:
  int next_occurrence(std::size_t call) {
    const std::int32_t step = steps_.step();
    if (occurrence_step_[call] != step) {
      occurrence_step_[call] = step;
      occurrences_[call] = 0;
    }
    return occurrences_[call]++;
  }

  void record(stepclock_kind kind, std::uint16_t name, std::int32_t layer, std::int32_t seq,
              std::int64_t bytes, std::int64_t begin_ns, std::int64_t end_ns) {
    const stepclock_event e{
        kind, name, stepclock_ids{steps_.step(), -1, layer, seq, bytes}, begin_ns, end_ns, -1, -1};
    stepclock_record(&e);
  }

  void boundary(std::int64_t now) {
    const StepCounter::Closed closed = steps_.boundary(now);
    // The CPU wait of each kept step (two schedstat reads per step, none per call).
    stepclock_step_wait_end();
    if (steps_.kept(steps_.step())) stepclock_step_wait_begin(steps_.step());
    if (!closed.has_step) return;
    const stepclock_event e{STEPCLOCK_STEP,
                            step_name_,
                            stepclock_ids{closed.step, -1, -1, -1, 0},
                            closed.begin_ns,
                            now,
                            -1,
                            -1};
    stepclock_record(&e);
  }

  // initial-exec: the library is loaded at start-up (LD_PRELOAD), so its TLS is static and a
  // read costs no __tls_get_addr call.
  static thread_local bool t_main_thread __attribute__((tls_model("initial-exec")));

  bool active_ = false;
  bool started_ = false;
  int rank_ = 0;
  int sync_exchanges_ = 20;
  CommTable comms_;
  DelayPlan delays_;
  StepCounter steps_{1, 0};
  std::size_t rule_call_ = kPcontrol;
  std::int64_t last_return_ns_ = 0;
  std::int32_t occurrence_now_ = -1;
  std::array<std::uint16_t, kCallCount> call_names_{};
  std::array<std::uint16_t, kCallCount> compute_names_{};
  std::array<std::int32_t, kCallCount> occurrence_step_{};
  std::array<std::int32_t, kCallCount> occurrences_{};
  std::uint16_t step_name_ = 0;
  std::string run_file_;
  std::string config_json_;
};

// The one per-process recorder (MPI itself is per process).
Recorder& recorder();

}  // namespace culprit::pmpi
