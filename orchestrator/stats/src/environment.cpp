#include "culprit/stats/environment.hpp"

#include <algorithm>
#include <set>

#include "culprit/errors.hpp"

namespace culprit::stats {

std::vector<std::string> keys_changed_by_factor(std::string_view varied_factor) {
  std::vector<std::string> keys{std::string(varied_factor)};
  if (varied_factor == "ranks") {
    keys.insert(keys.end(), {"ranks_per_core", "hosts"});
  } else if (varied_factor == "version") {
    keys.insert(keys.end(), {"binary_hash", "command_line"});
  }
  return keys;
}

std::vector<std::string> differing_environment(const EnvironmentFacts& baseline,
                                               const EnvironmentFacts& candidate,
                                               std::string_view varied_factor) {
  const std::vector<std::string> allowed = keys_changed_by_factor(varied_factor);
  std::set<std::string> keys;
  for (const auto& [key, value] : baseline) keys.insert(key);
  for (const auto& [key, value] : candidate) keys.insert(key);
  std::vector<std::string> differing;
  for (const std::string& key : keys) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto a = baseline.find(key);
    const auto b = candidate.find(key);
    const bool same = a != baseline.end() && b != candidate.end() && a->second == b->second;
    if (!same) differing.push_back(key);
  }
  return differing;
}

void require_same_environment(const EnvironmentFacts& baseline, const EnvironmentFacts& candidate,
                              std::string_view varied_factor, std::string_view baseline_label,
                              std::string_view candidate_label) {
  const std::vector<std::string> differing =
      differing_environment(baseline, candidate, varied_factor);
  if (differing.empty()) return;
  const auto value_of = [](const EnvironmentFacts& facts, const std::string& key) {
    const auto it = facts.find(key);
    return it == facts.end() ? std::string("(not recorded)") : "'" + it->second + "'";
  };
  std::string message = "refusing to compare '" + std::string(baseline_label) + "' with '" +
                        std::string(candidate_label) + "': their environments differ in more " +
                        "than the varied factor '" + std::string(varied_factor) + "':";
  for (const std::string& key : differing) {
    message += " " + key + " " + value_of(baseline, key) + " vs " + value_of(candidate, key) + ";";
  }
  message +=
      " rerun both configurations in the same environment (same hosts, binding, ranks per core, "
      "yield mode and backend), or vary that fact explicitly in its own experiment";
  throw UsageError(message);
}

}  // namespace culprit::stats
