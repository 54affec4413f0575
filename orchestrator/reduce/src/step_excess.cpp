#include "culprit/reduce/step_excess.hpp"

#include <map>

#include "culprit/analysis/step_times.hpp"
#include "culprit/analysis/stored_runs.hpp"
#include "culprit/common/median.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::reduce {

using analysis::load_experiment_runs;
using analysis::median_step_ms;
using analysis::step_times;
using analysis::StepTime;
using analysis::StoredConfig;
using analysis::StoredRun;

std::vector<StepExcess> step_excess(storage::Db& store, const std::string& experiment,
                                    const std::vector<int>& steps) {
  std::vector<StepExcess> out;
  for (const StoredConfig& config : load_experiment_runs(store, experiment).configs) {
    std::vector<double> per_run;
    for (const StoredRun& run : config.ok_runs) {
      const std::vector<StepTime> times =
          step_times(storage::load_run(store, run.id, storage::EventSelection::kStepsOnly));
      std::map<int, double> by_step;
      for (const StepTime& t : times) by_step[t.step] = t.time_ms;
      const double median = median_step_ms(times);
      double sum = 0;
      int n = 0;
      for (int s : steps) {
        auto it = by_step.find(s);
        if (it == by_step.end()) continue;
        sum += it->second - median;
        ++n;
      }
      if (n > 0) per_run.push_back(sum / n);
    }
    if (per_run.empty()) continue;
    out.push_back({config.label, median_of(per_run), static_cast<int>(per_run.size())});
  }
  return out;
}

}  // namespace culprit::reduce
