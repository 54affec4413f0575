#include "workload.hpp"
#include "runfile/meta_keys.hpp"

#include <cstdio>
#include <stdexcept>

#include "backend.hpp"
#include "injection.hpp"
#include "phase_nvtx.hpp"
#include "runfile/phase_range.hpp"
#include "step_runner.hpp"
#include "stepclock/clock_model.hpp"
#include "stepclock/stepclock.hpp"

namespace synthetic {
namespace {

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

void set_meta(const stepmodel::RunConfig& config) {
  const auto& m = config.model;
  stepclock::check(stepclock_set_meta(runfile::meta::kBackend, config.backend.c_str()), "meta");
  stepclock::check(
      stepclock_set_meta(runfile::meta::kWarmupSteps, std::to_string(config.warmup_steps).c_str()),
      "meta");
  stepclock::check(stepclock_set_meta(runfile::meta::kSteps, std::to_string(config.steps).c_str()),
                   "meta");
  stepclock::check(stepclock_set_meta(runfile::meta::kModelFlopsPerStep,
                                      number(stepmodel::model_flops_per_step(m)).c_str()),
                   "meta");
  stepclock::check(stepclock_set_meta(runfile::meta::kParameterBytes,
                                      std::to_string(stepmodel::parameter_bytes(m)).c_str()),
                   "meta");
  stepclock::check(stepclock_set_meta(runfile::meta::kSource, "culprit-step"), "meta");
  if (phase_ranges_compiled()) {
    stepclock::check(stepclock_set_meta(runfile::meta::kPhaseRanges, runfile::kPhaseRangesNvtx),
                     "meta");
  }
}

}  // namespace

void check_runnable(const stepmodel::RunConfig& config, int mpi_ranks) {
  if (config.backend == "sim") {
    throw std::invalid_argument("backend: 'sim' runs in culprit-sim, not culprit-step");
  }
  if (config.ranks != mpi_ranks) {
    throw std::invalid_argument("ranks: the configuration says " + std::to_string(config.ranks) +
                                " but mpirun started " + std::to_string(mpi_ranks) +
                                "; launch with mpirun -np " + std::to_string(config.ranks));
  }
  if (!config.model.schedule.empty() &&
      (config.backend != "cpu" || config.model.compute != "sleep")) {
    throw std::invalid_argument(
        "model.schedule: a measured schedule runs on backend cpu with compute = \"sleep\" (or "
        "on backend sim); set both");
  }
  if (config.backend == "cpu") {
    for (const auto& d : config.inject.delays) {
      if (d.mode == "gpu") {
        throw std::invalid_argument(
            "inject.delays.mode: 'gpu' needs backend cuda; use spin or sleep on the cpu backend");
      }
    }
  }
}

void run_workload(const stepmodel::RunConfig& config, const std::string& config_text,
                  const std::string& run_file, int rank, int ranks) {
  stepclock::check(stepclock_init(MPI_COMM_WORLD, events_per_rank(config) + 16), "stepclock");
  const RankInjections injections(config, rank);
  if (injections.has_skew()) {
    stepclock::check(
        stepclock_inject_clock_skew(injections.skew_offset_ms(), injections.skew_drift_ppm()),
        "clock skew");
  }
  std::unique_ptr<Backend> backend =
      config.backend == "cuda"         ? make_cuda_backend(config, injections, rank, ranks)
      : !config.model.schedule.empty() ? make_measured_backend(config, injections)
                                       : make_cpu_backend(config, injections, rank, ranks);
  set_meta(config);
  stepclock::check(stepclock_sync_start(stepclock::kDefaultClockExchanges), "clock sync");
  run_steps(*backend, config, injections);
  stepclock::check(stepclock_sync_end(stepclock::kDefaultClockExchanges), "clock sync");
  if (stepclock_dropped() > 0) {
    throw std::runtime_error("event buffer overflow: " + std::to_string(stepclock_dropped()) +
                             " events dropped (bug in the capacity estimate)");
  }
  for (const auto& [key, value] : backend->provenance()) {
    stepclock::check(stepclock_add_provenance(key.c_str(), value.c_str()), "provenance");
  }
  backend.reset();
  stepclock::check(
      stepclock_write_run_file(run_file.c_str(), rank == 0 ? config_text.c_str() : nullptr),
      "run file");
  stepclock_finalize();
}

}  // namespace synthetic
