#include "culprit/stats/change_point.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/stats/mann_whitney.hpp"
#include "culprit/stats/summary.hpp"

namespace culprit::stats {
namespace {

constexpr double kNormalUpperQuartile = 0.6744897501960817;

struct LogRun {
  int version = 0;
  double y = 0;  // log value, drift removed
  long order = 0;
};

// Normal-consistent scale from within-version pairwise differences: median |y_i - y_j| over
// pairs of runs of the same version is 0.6745 * sqrt(2) * sigma for normal errors. Levels
// cancel in a difference, so the estimate needs no model of where the step is.
double within_version_sigma(const std::vector<std::vector<double>>& by_version) {
  std::vector<double> diffs;
  for (const auto& ys : by_version) {
    for (std::size_t i = 0; i < ys.size(); ++i) {
      for (std::size_t j = i + 1; j < ys.size(); ++j) diffs.push_back(std::abs(ys[i] - ys[j]));
    }
  }
  if (diffs.empty()) return 1e-3;
  const double sigma = median(diffs) / (kNormalUpperQuartile * std::numbers::sqrt2);
  return std::max(sigma, 1e-5);
}

// Student-t log density up to a constant shared by every model (sigma is common).
double t_log_density(double residual, double sigma, double nu) {
  const double z = residual / sigma;
  return -0.5 * (nu + 1) * std::log1p(z * z / nu);
}

// M-estimate of location under the t likelihood: a few reweighting steps from the median.
double t_location(const std::vector<double>& ys, double sigma, double nu) {
  double mu = median(ys);
  for (int iteration = 0; iteration < 4; ++iteration) {
    double weighted = 0;
    double weights = 0;
    for (double y : ys) {
      const double z = (y - mu) / sigma;
      const double w = (nu + 1) / (nu + z * z);
      weighted += w * y;
      weights += w;
    }
    mu = weighted / weights;
  }
  return mu;
}

double log_likelihood(const std::vector<double>& ys, double mu, double sigma, double nu) {
  double sum = 0;
  for (double y : ys) sum += t_log_density(y - mu, sigma, nu);
  return sum;
}

// Drift of each run: the median residual (from its version's median) of the runs made just
// before and after it, counting only versions with enough runs for a settled median.
void remove_drift(std::vector<LogRun>& all, int versions, const ChangePointOptions& options) {
  std::vector<std::vector<double>> by_version(static_cast<std::size_t>(versions));
  for (const auto& r : all) by_version[static_cast<std::size_t>(r.version)].push_back(r.y);
  std::vector<double> level(static_cast<std::size_t>(versions), 0);
  for (int v = 0; v < versions; ++v) {
    const auto& ys = by_version[static_cast<std::size_t>(v)];
    if (!ys.empty()) level[static_cast<std::size_t>(v)] = median(ys);
  }
  std::vector<std::size_t> by_time(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) by_time[i] = i;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::size_t a, std::size_t b) { return all[a].order < all[b].order; });
  std::vector<double> drift(all.size(), 0);
  const long window = options.drift_window;
  for (std::size_t t = 0; t < by_time.size(); ++t) {
    std::vector<double> residuals;
    const long lo = std::max(0L, static_cast<long>(t) - window);
    const long hi = std::min(static_cast<long>(by_time.size()) - 1, static_cast<long>(t) + window);
    for (long u = lo; u <= hi; ++u) {
      if (u == static_cast<long>(t)) continue;
      const auto& r = all[by_time[static_cast<std::size_t>(u)]];
      const auto& ys = by_version[static_cast<std::size_t>(r.version)];
      if (static_cast<int>(ys.size()) < options.drift_min_runs) continue;
      residuals.push_back(r.y - level[static_cast<std::size_t>(r.version)]);
    }
    if (residuals.size() >= 2) drift[by_time[t]] = median(residuals);
  }
  // Only drift clearly above the noise is removed: a correction from a few neighbours would
  // otherwise add their noise to every run.
  std::vector<std::vector<double>> centred(static_cast<std::size_t>(versions));
  for (const auto& r : all) centred[static_cast<std::size_t>(r.version)].push_back(r.y);
  const double sigma = within_version_sigma(centred);
  const double threshold = options.drift_threshold * sigma;
  for (double& d : drift) d = std::abs(d) > threshold ? d : 0;
  for (std::size_t i = 0; i < all.size(); ++i) all[i].y -= drift[i];
}

// One tail model's posterior over the first bad version.
struct Fit {
  double degrees_of_freedom = 0;
  std::vector<double> probability;  // as ChangePointPosterior's
  double no_step = 0;
  std::vector<double> shift;  // log step at each first bad version (0 where none fits)
  double log_evidence = 0;    // log marginal likelihood of the runs under this model
};

// The t's scale with the runs' spread: the scale at which t_nu has the runs' quartiles (those
// of a normal of SD normal_sigma). The normal SD itself, taken as the t scale, widens the
// likelihood (t_4 then has 10 % more spread than the runs) and slows every decision. The
// quartiles are the same for every posterior of a bisection: computed once per nu and thread.
double t_scale(double normal_sigma, double nu) {
  thread_local std::map<double, double> quartiles;
  auto known = quartiles.find(nu);
  if (known == quartiles.end()) known = quartiles.emplace(nu, student_t_upper_quartile(nu)).first;
  return normal_sigma * kNormalUpperQuartile / known->second;
}

struct StepTerm {
  double log_likelihood = 0;  // of the runs under the step
  double occam = 0;           // log of the step prior's Occam factor
  double delta = 0;           // the step (log), 0 where the later level is not higher
};

// The runs split at one first bad version: `left` before it, `right` from it; `ll0` is the
// likelihood without a step, `se_factor` the t location's standard error factor and `s` the
// prior's shift scale.
StepTerm step_term(const std::vector<double>& left, const std::vector<double>& right, double sigma,
                   double nu, double se_factor, double s, double ll0) {
  const double mu_l = t_location(left, sigma, nu);
  const double mu_r = t_location(right, sigma, nu);
  const double se = se_factor * std::sqrt(1.0 / static_cast<double>(left.size()) +
                                          1.0 / static_cast<double>(right.size()));
  StepTerm term;
  term.delta = mu_r - mu_l;
  if (term.delta <= 0) {
    term.delta = 0;  // the later level is not lower: the best step is none
    term.log_likelihood = ll0;
    term.occam = std::log(1 / s) + std::log(se);
    return term;
  }
  const double delta = term.delta;
  // Laplace: integral of L(delta) p(delta) over the prior on delta >= 0: a half-normal of
  // scale s, mixed (10 %) with a half-Cauchy of scale 10 s so that a step far larger than
  // the usual regression (a 2x or 50x slower version) is not ruled out a priori.
  const double wide = 10 * s;
  const double normal = 2 / (s * std::sqrt(2 * M_PI)) * std::exp(-delta * delta / (2 * s * s));
  const double cauchy = 2 / (M_PI * wide * (1 + (delta / wide) * (delta / wide)));
  term.occam = std::log(0.9 * normal + 0.1 * cauchy) + std::log(std::sqrt(2 * M_PI)) + std::log(se);
  term.log_likelihood =
      log_likelihood(left, mu_l, sigma, nu) + log_likelihood(right, mu_r, sigma, nu);
  return term;
}

// The posterior under t errors of `nu` degrees of freedom, with its marginal likelihood.
Fit fit_tails(const std::vector<std::vector<double>>& by_version, double normal_sigma,
              const ChangePointOptions& options, double nu) {
  const int versions = static_cast<int>(by_version.size());
  const double sigma = t_scale(normal_sigma, nu);
  // Standard error factor of a t location estimate (Fisher information (nu+1)/((nu+3) s^2)).
  const double se_factor = sigma * std::sqrt((nu + 3) / (nu + 1));
  const double s = options.shift_scale;

  std::vector<double> pooled;
  for (const auto& ys : by_version) pooled.insert(pooled.end(), ys.begin(), ys.end());
  const double mu0 = t_location(pooled, sigma, nu);
  const double ll0 = log_likelihood(pooled, mu0, sigma, nu);

  Fit fit;
  fit.degrees_of_freedom = nu;
  fit.probability.assign(static_cast<std::size_t>(versions), 0);
  std::vector<double> log_post(static_cast<std::size_t>(versions), 0);
  std::vector<double>& shift = fit.shift;
  shift.assign(static_cast<std::size_t>(versions), 0);
  const double log_prior_step = std::log((1 - options.prior_no_step) / (versions - 1));
  const double log_no_step =
      options.prior_no_step > 0 ? std::log(options.prior_no_step) + ll0 : -INFINITY;
  double top = log_no_step;
  std::vector<double> left;
  std::vector<double> right;
  for (int k = 1; k < versions; ++k) {
    left.clear();
    right.clear();
    for (int v = 0; v < versions; ++v) {
      auto& side = v < k ? left : right;
      const auto& ys = by_version[static_cast<std::size_t>(v)];
      side.insert(side.end(), ys.begin(), ys.end());
    }
    const StepTerm term = step_term(left, right, sigma, nu, se_factor, s, ll0);
    const double lp = log_prior_step + term.log_likelihood + term.occam;
    log_post[static_cast<std::size_t>(k)] = lp;
    shift[static_cast<std::size_t>(k)] = term.delta;
    top = std::max(top, lp);
  }
  double total = options.prior_no_step > 0 ? std::exp(log_no_step - top) : 0;
  for (int k = 1; k < versions; ++k) total += std::exp(log_post[static_cast<std::size_t>(k)] - top);
  fit.no_step = options.prior_no_step > 0 ? std::exp(log_no_step - top) / total : 0;
  for (int k = 1; k < versions; ++k) {
    fit.probability[static_cast<std::size_t>(k)] =
        std::exp(log_post[static_cast<std::size_t>(k)] - top) / total;
  }
  // The marginal likelihood needs the t density's constant, which t_log_density leaves out
  // because it is common to every model of one nu, but not across nu.
  const double log_constant = std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2) -
                              0.5 * std::log(nu * std::numbers::pi) - std::log(sigma);
  fit.log_evidence = top + std::log(total) + static_cast<double>(pooled.size()) * log_constant;
  return fit;
}

// The fits averaged by their marginal likelihoods (equal prior weights): tails that explain the
// runs better count for more, so clean runs are judged near-normally (a run counts for all it
// says) and runs with outliers or load bursts robustly.
ChangePointPosterior average(const std::vector<Fit>& fits, double normal_sigma) {
  double top = -INFINITY;
  for (const Fit& f : fits) top = std::max(top, f.log_evidence);
  double total = 0;
  for (const Fit& f : fits) total += std::exp(f.log_evidence - top);
  const std::size_t versions = fits.front().probability.size();
  ChangePointPosterior post;
  post.sigma = normal_sigma;
  post.probability.assign(versions, 0);
  std::vector<double> shift(versions, 0);
  double heaviest = -1;
  for (const Fit& f : fits) {
    const double w = std::exp(f.log_evidence - top) / total;
    post.no_step += w * f.no_step;
    for (std::size_t k = 0; k < versions; ++k) {
      post.probability[k] += w * f.probability[k];
      shift[k] += w * f.shift[k];
    }
    if (w > heaviest) {
      heaviest = w;
      post.degrees_of_freedom = f.degrees_of_freedom;
    }
  }
  double best = -1;
  for (std::size_t k = 1; k < versions; ++k) {
    if (post.probability[k] > best) {
      best = post.probability[k];
      post.most_likely = static_cast<int>(k);
    }
  }
  post.relative_shift = std::expm1(shift[static_cast<std::size_t>(post.most_likely)]);
  post.cumulative.assign(versions, 0);
  const double step_mass = std::max(1 - post.no_step, 1e-300);
  double running = 0;
  for (std::size_t k = 0; k < versions; ++k) {
    running += post.probability[k];
    post.cumulative[k] = std::min(running / step_mass, 1.0);
  }
  return post;
}

}  // namespace

ChangePointPosterior change_point_posterior(const std::vector<std::vector<TimedRun>>& runs,
                                            const ChangePointOptions& options) {
  const int versions = static_cast<int>(runs.size());
  if (versions < 2 || runs.front().empty() || runs.back().empty()) {
    throw UsageError("change point: needs runs of the first and the last version");
  }
  const auto& tails = options.degrees_of_freedom;
  if (!(options.prior_no_step >= 0 && options.prior_no_step < 1) || !(options.shift_scale > 0) ||
      tails.empty() || !std::all_of(tails.begin(), tails.end(), [](double nu) { return nu > 0; })) {
    throw UsageError(
        "change point: prior_no_step must lie in [0, 1), shift_scale must be positive and "
        "degrees_of_freedom must list at least one positive value");
  }
  std::vector<LogRun> all;
  for (int v = 0; v < versions; ++v) {
    for (const auto& r : runs[static_cast<std::size_t>(v)]) {
      if (!(r.value > 0) || !std::isfinite(r.value)) {
        throw UsageError("change point: run median " + std::to_string(r.value) + " of version #" +
                         std::to_string(v) + " is not a positive time");
      }
      all.push_back({v, std::log(r.value), r.order});
    }
  }
  if (options.drift_window > 0) remove_drift(all, versions, options);

  std::vector<std::vector<double>> by_version(static_cast<std::size_t>(versions));
  for (const auto& r : all) by_version[static_cast<std::size_t>(r.version)].push_back(r.y);
  const double normal_sigma = within_version_sigma(by_version);
  std::vector<Fit> fits;
  for (double nu : tails) fits.push_back(fit_tails(by_version, normal_sigma, options, nu));
  return average(fits, normal_sigma);
}

double minimum_detectable_step(double sigma, int n, double alpha) {
  const double z = normal_quantile(1 - alpha / 2) + normal_quantile(0.8);
  const double mann_whitney_efficiency = 3 / std::numbers::pi;
  return std::expm1(z * sigma * std::sqrt(2.0 / std::max(n, 1)) /
                    std::sqrt(mann_whitney_efficiency));
}

// The CDF from 0 integrated by Simpson's rule (the density is smooth and bounded), inverted by
// bisection.
double student_t_upper_quartile(double nu) {
  if (!(nu > 0)) throw UsageError("student_t_upper_quartile: degrees of freedom must be positive");
  const double norm =
      std::exp(std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2)) / std::sqrt(nu * std::numbers::pi);
  const auto density = [&](double x) { return norm * std::pow(1 + x * x / nu, -(nu + 1) / 2); };
  const auto mass_from_zero = [&](double x) {
    constexpr int kIntervals = 64;
    const double h = x / kIntervals;
    double sum = density(0) + density(x);
    for (int i = 1; i < kIntervals; ++i) sum += (i % 2 == 1 ? 4 : 2) * density(i * h);
    return sum * h / 3;
  };
  double lo = 0;
  double hi = 1;  // t_1's quartile; heavier tails (nu < 1) put it further out
  while (mass_from_zero(hi) < 0.25) hi *= 2;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const double mid = (lo + hi) / 2;
    (mass_from_zero(mid) < 0.25 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace culprit::stats
