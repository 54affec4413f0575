// Measured-schedule backend (model.schedule, as `culprit reduce` writes it): each compute phase
// waits its measured duration, each collective all-reduces its measured payload through MPI.
// A reduced experiment so runs as real ranks with real communication, shaped like the job it
// was calibrated from (its region names, its collectives and their order).

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "../backend.hpp"
#include "comm_thread.hpp"
#include "stepclock/stepclock.hpp"

namespace synthetic {
namespace {

class MeasuredBackend final : public Backend {
 public:
  MeasuredBackend(const stepmodel::RunConfig& config, const RankInjections& injections)
      : factor_(injections.gemm_time_factor()) {
    std::int64_t largest = 4;
    std::size_t asynchronous = 0;
    for (const auto& p : config.model.schedule) {
      if (!p.collective) continue;
      largest = std::max(largest, p.bytes);
      if (p.async) ++asynchronous;
    }
    buffer_.assign(static_cast<std::size_t>((largest + 3) / 4), 1.0f);
    if (asynchronous > 0) comm_ = std::make_unique<CommThread>(MPI_COMM_WORLD, asynchronous);
  }

  void begin_step(int) override {}

  void compute(const PhaseWork& work) override {
    const stepmodel::Phase& p = *work.phase;
    sleep_for_ns(static_cast<std::int64_t>(p.gap_ns));
    if (p.waits_for_async && comm_) comm_->wait_all();
    const stepclock_region region = stepclock_begin(STEPCLOCK_COMPUTE, work.name, phase_ids(work));
    spend_on_host(work.delay);
    sleep_for_ns(static_cast<std::int64_t>(p.fixed_ns * factor_));
    stepclock_end(region);
  }

  // The transfer time is the network's: the measured payload is all-reduced for real, so on
  // this machine it takes what this machine's MPI takes (docs/methodology.md, "Reduction").
  void allreduce(const PhaseWork& work) override {
    const stepmodel::Phase& p = *work.phase;
    sleep_for_ns(static_cast<std::int64_t>(p.gap_ns));
    allreduce_phase(work, buffer_.data(),
                    static_cast<int>(std::max<std::int64_t>(1, (p.bytes + 3) / 4)), MPI_FLOAT,
                    comm_.get(), "collective");
  }

  void end_step(int) override {
    if (comm_) comm_->wait_all();
  }

  void verify_step(int) override {}  // the payload is not a gradient: nothing to check

  std::vector<std::pair<std::string, std::string>> provenance() const override {
    return {{"schedule", "measured (model.schedule)"},
            {"compute_time_factor", std::to_string(factor_)}};
  }

 private:
  double factor_;
  std::vector<float> buffer_;
  std::unique_ptr<CommThread> comm_;
};

}  // namespace

std::unique_ptr<Backend> make_measured_backend(const stepmodel::RunConfig& config,
                                               const RankInjections& injections) {
  return std::make_unique<MeasuredBackend>(config, injections);
}

}  // namespace synthetic
