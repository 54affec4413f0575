#pragma once
// [*.inject] tables and delay levels: the same keys as the resolved configuration's "inject"
// (docs/schema.md), with `steps = N` or `steps = [first, last]` as a shorthand.

#include <algorithm>
#include <optional>
#include <string>

#include "stepmodel/pmpi_calls.hpp"
#include "toml_reader.hpp"

namespace culprit::manifest::detail {

// The built-in workload's phases, then the PMPI interposer's ("compute>MPI_Allreduce"...).
inline const std::vector<std::string>& phase_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = {"gemm.fwd", "gemm.bwd.dgrad", "gemm.bwd.wgrad", "allreduce",
                                    "optimizer"};
    const std::string prefix(stepmodel::kPmpiComputePrefix);
    for (auto call : stepmodel::kPmpiCollectives) all.push_back(prefix + std::string(call));
    for (auto call : stepmodel::kPmpiWaits) all.push_back(prefix + std::string(call));
    for (auto call : stepmodel::kPmpiMarkers) all.push_back(prefix + std::string(call));
    return all;
  }();
  return names;
}

inline bool is_builtin_phase(const std::string& phase) {
  const auto& names = phase_names();
  return std::find(names.begin(), names.end(), phase) != names.end();
}

// `any_phase`: the delays go to a custom program (a version's `command`), whose phases are its
// own region names, so any name is accepted; else only culprit-step's phase_names().
InjectionSpec parse_inject(TomlReader& reader, const toml::node& node, const std::string& path,
                           bool any_phase = false);
std::optional<Located<stepmodel::DelayInjection>> parse_delay(TomlReader& reader,
                                                              const toml::node& node,
                                                              const std::string& path,
                                                              bool any_phase = false);

}  // namespace culprit::manifest::detail
