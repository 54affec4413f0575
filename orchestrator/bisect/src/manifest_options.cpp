#include "culprit/bisect/manifest_options.hpp"

#include <algorithm>

namespace culprit::bisect {

Options options_from(const manifest::ExperimentSettings& settings) {
  Options o;
  o.repetitions = settings.repetitions;
  o.max_repetitions = std::max(settings.max_repetitions, settings.repetitions);
  o.alpha = settings.alpha;
  o.margin = settings.margin;
  return o;
}

}  // namespace culprit::bisect
