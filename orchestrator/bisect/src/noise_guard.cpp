#include "noise_guard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "culprit/common/median.hpp"
#include "culprit/stats/mann_whitney.hpp"
#include "culprit/stats/summary.hpp"

namespace culprit::bisect {

void NoiseGuard::check(const PairSamples& s, const stats::Comparison& first_look, double no_step) {
  // The spread that matters is within a block: the robust SD of the pairs' log ratios,
  // over sqrt(2) for one run (load common to a block cancels).
  std::vector<double> ratios;
  for (std::size_t i = 0; i < s.baseline.size(); ++i) {
    ratios.push_back(std::log(s.candidate[i] / s.baseline[i]));
  }
  const double centre = stats::median(ratios);
  for (double& r : ratios) r = std::abs(r - centre);
  const double cv = std::max(kMadToNormalSd * stats::median(ratios) / std::numbers::sqrt2, 1e-6);
  const double look = stats::look_alpha(sampling_plan(options_));
  noise_.cv = cv;
  noise_.mde_at_cap = stats::minimum_detectable_step(cv, options_.max_repetitions, look);
  const double target = first_look.relative;
  const double z = stats::normal_quantile(1 - look / 2) + stats::normal_quantile(0.8);
  const double root = z * cv / std::log1p(target) / std::sqrt(3 / std::numbers::pi);
  noise_.runs_needed = static_cast<int>(std::ceil(2 * root * root));
  // Only a step of practical size is worth the check (below the margin the cap ends in
  // "not reproduced" anyway); stop only when the cap's MDE is clearly out of reach (twice
  // the estimate: the CV from a second look is itself uncertain).
  if (first_look.verdict != Verdict::kInconclusive || target < options_.margin) return;
  if (noise_.mde_at_cap <= 2 * target || no_step > 0.5) return;
  noise_.limited = true;
  noise_.advice = fmt::format(
      "run-to-run CV is {:.1f} % (measured over {} runs): with at most {} runs per version the "
      "smallest detectable step is {:.1f} %, far above the {:.1f} % the endpoints show; about "
      "{} runs per version would be needed. Raise stats.max_repetitions, run fewer ranks per "
      "core, bind "
      "ranks to cores, or use a quieter machine",
      100 * cv, ledger_.have(0) + ledger_.have(ledger_.count() - 1), options_.max_repetitions,
      100 * noise_.mde_at_cap, 100 * target, noise_.runs_needed);
  throw NoiseStop{};
}

void NoiseGuard::update(const stats::ChangePointPosterior& post) {
  const double look = stats::look_alpha(sampling_plan(options_));
  noise_.cv = post.sigma;
  noise_.mde_at_cap = stats::minimum_detectable_step(post.sigma, options_.max_repetitions, look);
}

}  // namespace culprit::bisect
