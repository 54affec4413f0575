#pragma once
// The shape of one run's step, measured (docs/methodology.md, "Reduction"): the phases present in
// most (rank, steady step) instances, in issue order, each with the typical duration, the host
// gap before it (time spent waiting for an outstanding collective excluded: the model waits
// itself), and for collectives the payload, the transfer time after the last arrival and whether
// it overlaps later compute. `culprit reduce` writes this as a model.schedule, so a simulated or
// sleeping model of the job follows the real job's own region names and collectives.

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/storage/run_data.hpp"
#include "stepmodel/config.hpp"

namespace culprit::reduce {

struct CalibratedPhase {
  stepmodel::SchedulePhase phase;
  int samples = 0;       // (rank, steady step) instances behind the medians
  double spread_cv = 0;  // robust CV of the duration over those instances
  double wait_ms = 0;    // collectives: the median wait at the call (not part of the model)
};

struct Calibration {
  std::int64_t run_id = 0;
  int ranks = 0;
  int warmup_steps = 0;
  int steady_steps = 0;
  int first_step = 0;  // the run's first step number (imported runs keep their own numbering)
  double median_step_ms = 0;
  std::vector<CalibratedPhase> phases;  // one step, in issue order
  double noise_cv = 0;                  // median robust CV over the compute phases
  // The step the schedule adds up to on one rank (gaps + compute + blocking transfers), beside
  // the measured median: their difference is waiting the model reproduces only through noise.
  double schedule_ms = 0;
  std::vector<std::string> notes;  // what the calibration could not take over, and why
};

// Throws culprit::UsageError when the run cannot be calibrated (fewer than `min_steady_steps`
// steady steps, no phase present in most steady steps).
Calibration calibrate(const storage::RunData& run, int min_steady_steps = 5);

}  // namespace culprit::reduce
