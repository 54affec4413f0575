#pragma once
// The bisection's sampling options as a manifest sets them ([experiment] repetitions,
// max_repetitions; [stats] alpha, margin), shared by `culprit bisect` and `culprit verdict`.

#include "culprit/bisect/bisector.hpp"
#include "culprit/manifest/manifest.hpp"

namespace culprit::bisect {

Options options_from(const manifest::ExperimentSettings& settings);

}  // namespace culprit::bisect
