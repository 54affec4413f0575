#pragma once
// Measurements through the launcher and the results store: a version's runs are the ok runs
// of its configuration in the manifest's experiment, so runs made by an earlier bisection (or
// by `culprit run`) count, and only missing repetitions are run.

#include <map>
#include <string>
#include <vector>

#include "culprit/bisect/measurer.hpp"
#include "culprit/bisect/versions.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::bisect {

class StoreMeasurer : public Measurer {
 public:
  StoreMeasurer(storage::Db& store, const manifest::Manifest& manifest, VersionSource& versions,
                launch::ExecuteOptions options, launch::ProgressSink* progress = nullptr);

  // Resolves the version (building it when it is a commit), runs what is missing and returns
  // the run medians of its first `min_n` ok runs by repetition. Throws Untestable when the
  // build fails or the runs keep failing.
  std::vector<double> samples(int index, int min_n) override;
  // Runs the missing repetitions of several versions in interleaved balanced blocks.
  void prefetch(const std::vector<int>& indexes, int min_n) override;

  int new_runs() const { return new_runs_; }
  // The configuration label a version was measured as ("" when not resolved yet).
  std::string label(int index) const;

 private:
  int config_index(int index);

  storage::Db& store_;
  const manifest::Manifest& manifest_;
  VersionSource& versions_;
  launch::ExecuteOptions options_;
  launch::ProgressSink* progress_;
  manifest::Plan plan_;           // the baseline plus each version met, runs appended on demand
  std::map<int, int> config_of_;  // version index -> plan_.configs index
  std::map<int, std::string> untestable_;
  int new_runs_ = 0;
};

}  // namespace culprit::bisect
