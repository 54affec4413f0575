#pragma once
// Comparisons are only fair when the two configurations ran in the same environment except
// for the factor the experiment varies. These pure functions find the facts that differ.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::stats {

using EnvironmentFacts = std::map<std::string, std::string>;

// The facts the launcher should record and pass in: ranks per core, binding, yield mode,
// hosts, backend.
inline constexpr const char* kControlledEnvironmentKeys[] = {"ranks_per_core", "binding",
                                                             "yield_mode", "hosts", "backend"};

// Keys the varied factor legitimately changes: the factor itself, plus for "ranks" also
// "ranks_per_core" and "hosts" (more ranks need more cores or hosts), for "version" also
// "binary_hash" and "command_line". Other factors ("delay", "model.<key>") change only
// themselves.
std::vector<std::string> keys_changed_by_factor(std::string_view varied_factor);

// Keys present in either map whose values differ (a missing key differs from a present one),
// excluding keys_changed_by_factor(varied_factor). Sorted.
std::vector<std::string> differing_environment(const EnvironmentFacts& baseline,
                                               const EnvironmentFacts& candidate,
                                               std::string_view varied_factor);

// Throws culprit::UsageError naming each differing key with both values, and what to do,
// when differing_environment() is not empty.
void require_same_environment(const EnvironmentFacts& baseline, const EnvironmentFacts& candidate,
                              std::string_view varied_factor, std::string_view baseline_label,
                              std::string_view candidate_label);

}  // namespace culprit::stats
