#include "culprit/bisect/replay.hpp"

#include <algorithm>
#include <map>

#include "culprit/bisect/manifest_options.hpp"
#include "culprit/bisect/versions.hpp"
#include "culprit/storage/experiment_settings.hpp"
#include "culprit/storage/queries.hpp"

namespace culprit::bisect {
namespace {

class StoredMeasurer : public Measurer {
 public:
  explicit StoredMeasurer(std::vector<StoredVersion>& versions) : versions_(versions) {}
  std::vector<double> samples(int index, int min_n) override {
    const std::vector<double>& all = versions_[static_cast<std::size_t>(index)].medians_ms;
    if (static_cast<int>(all.size()) < min_n) {
      throw Untestable("not measured: the store holds " + std::to_string(all.size()) + " of the " +
                       std::to_string(min_n) + " runs asked for");
    }
    return {all.begin(), all.begin() + min_n};
  }

 private:
  std::vector<StoredVersion>& versions_;
};

// The sampling options as the bisection ran: the store's settings of the experiment (the
// manifest's only for one registered before the store kept them).
Options stored_options(storage::Db& store, std::int64_t experiment_id,
                       const manifest::Manifest& manifest) {
  Options options = options_from(manifest.settings);
  if (const auto stored = storage::experiment_settings(store, experiment_id)) {
    options.repetitions = stored->repetitions;
    options.max_repetitions = std::max(stored->max_repetitions, stored->repetitions);
    options.alpha = stored->alpha;
    options.margin = stored->margin;
  }
  return options;
}

}  // namespace

std::optional<Replay> replay_bisection(storage::Db& store, std::int64_t experiment_id,
                                       const manifest::Manifest& manifest, std::string& why) {
  if (!manifest.bisect) {
    why = "the experiment's manifest has no [bisect] section";
    return std::nullopt;
  }
  if (manifest.bisect->git) {
    why =
        "the experiment bisects a git range; its commits are built on demand and a report "
        "does not build (see `culprit bisect --json`)";
    return std::nullopt;
  }
  auto source = make_version_source(manifest, "");
  Replay replay;
  for (int i = 0; i < static_cast<int>(source->names().size()); ++i) {
    StoredVersion v;
    v.name = source->names()[static_cast<std::size_t>(i)];
    v.detail = source->detail(i);
    const manifest::Configuration config = version_configuration(manifest, source->spec(i));
    v.medians_ms = storage::ok_medians_by_hash(store, experiment_id, config.config_hash);
    replay.versions.push_back(std::move(v));
  }
  const Options options = stored_options(store, experiment_id, manifest);
  StoredMeasurer measurer(replay.versions);
  try {
    replay.result = run_bisection(source->names(), measurer, options);
  } catch (const std::exception& e) {
    why = std::string("the stored runs do not replay a bisection: ") + e.what();
    return std::nullopt;
  }
  return replay;
}

}  // namespace culprit::bisect
