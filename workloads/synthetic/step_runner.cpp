#include "step_runner.hpp"

#include <string>

#include "phase_nvtx.hpp"
#include "stepclock/stepclock.hpp"

namespace synthetic {

std::int64_t events_per_rank(const stepmodel::RunConfig& config) {
  const auto phases = static_cast<std::int64_t>(stepmodel::step_schedule(config.model).size());
  return (phases + 1) * (config.warmup_steps + config.steps);
}

int run_steps(Backend& backend, const stepmodel::RunConfig& config,
              const RankInjections& injections) {
  const std::vector<stepmodel::Phase> schedule = stepmodel::step_schedule(config.model);
  std::vector<PhaseWork> work(schedule.size());
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    work[i].phase = &schedule[i];
    work[i].name = stepclock_name(std::string(schedule[i].name).c_str());
  }
  const int total = config.warmup_steps + config.steps;
  for (int step = 0; step < total; ++step) {
    injections.fault_point(step);
    {
      stepclock::ScopedStep step_event(step);
      backend.begin_step(step);
      for (PhaseWork& w : work) {
        w.step = step;
        w.delay = injections.delay_for(*w.phase, step);
        const PhaseRange range(w);
        if (w.phase->kind == stepmodel::PhaseKind::kCollective) {
          backend.allreduce(w);
        } else {
          backend.compute(w);
        }
      }
      backend.end_step(step);
    }
    backend.verify_step(step);
  }
  return total;
}

}  // namespace synthetic
