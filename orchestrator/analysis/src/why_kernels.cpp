// The kernels of an ncu export, and the pair the why verdict compares.
#include <map>
#include <regex>

#include <fmt/format.h>

#include "culprit/analysis/why.hpp"
#include "culprit/errors.hpp"
#include "why_numbers.hpp"

namespace culprit::analysis {

std::vector<KernelCounters> group_kernels(const importers::ncu::Report& report) {
  std::vector<KernelCounters> out;
  std::map<std::string, std::size_t> at;
  for (const importers::ncu::Launch& l : report.launches) {
    const auto [it, fresh] = at.emplace(l.kernel, out.size());
    if (fresh) out.push_back(KernelCounters{report.file, l.kernel, {}, {}});
    KernelCounters& k = out[it->second];
    k.launch_ids.push_back(l.id);
    k.launches.push_back(importers::ncu::kernel_figures(l));
  }
  return out;
}

namespace why_detail {

double total_ns(const KernelCounters& k) {
  double sum = 0.0;
  for (const auto& f : k.launches) sum += f.duration_ns ? f.duration_ns->value : 0.0;
  return sum;
}

std::regex kernel_pattern(const std::string& pattern) {
  try {
    return std::regex(pattern.empty() ? ".*" : pattern);
  } catch (const std::regex_error& e) {
    throw UsageError("--kernel '" + pattern + "' is not a valid regex: " + e.what());
  }
}

// What a pattern that matches no kernel is told: the file, and the names it could match.
UsageError no_match(const std::vector<KernelCounters>& all, const std::string& pattern,
                    const char* side) {
  constexpr std::size_t kShown = 5;
  std::string names;
  for (std::size_t i = 0; i < all.size() && i < kShown; ++i) {
    names += (i == 0 ? "'" : ", '") + all[i].kernel + "'";
  }
  if (all.size() > kShown) names += fmt::format(" and {} more", all.size() - kShown);
  const std::string file = all.empty() ? std::string() : " " + all.front().file;
  return UsageError(fmt::format(
      "no kernel of the {} export{} matches --kernel '{}' (a regex searched for in each "
      "kernel name): its kernels are {}; pass a part of one of those names",
      side, file, pattern, names));
}

std::vector<const KernelCounters*> chosen(const std::vector<KernelCounters>& all,
                                          const std::string& pattern, const char* side) {
  std::vector<const KernelCounters*> out;
  const std::regex re = kernel_pattern(pattern);
  for (const KernelCounters& k : all) {
    if (std::regex_search(k.kernel, re)) out.push_back(&k);
  }
  if (out.empty()) throw no_match(all, pattern, side);
  return out;
}

const KernelCounters* longest(const std::vector<const KernelCounters*>& ks) {
  const KernelCounters* best = ks.front();
  for (const KernelCounters* k : ks) {
    if (total_ns(*k) > total_ns(*best)) best = k;
  }
  return best;
}

// By name, the kernel whose total duration grew most; without a common name, the longest of
// each side (the kernel changed: different_kernel decides).
std::pair<const KernelCounters*, const KernelCounters*> pair_kernels(
    const std::vector<KernelCounters>& baseline, const std::vector<KernelCounters>& candidate,
    const std::string& pattern) {
  const auto b = chosen(baseline, pattern, "baseline");
  const auto c = chosen(candidate, pattern, "candidate");
  std::pair<const KernelCounters*, const KernelCounters*> best{nullptr, nullptr};
  double grew = 0.0;
  for (const KernelCounters* kc : c) {
    for (const KernelCounters* kb : b) {
      if (kb->kernel != kc->kernel) continue;
      const double d = total_ns(*kc) - total_ns(*kb);
      if (best.first == nullptr || d > grew) best = {kb, kc}, grew = d;
    }
  }
  if (best.first != nullptr) return best;
  return {longest(b), longest(c)};
}

}  // namespace why_detail
}  // namespace culprit::analysis
