#pragma once
// [baseline.model] schedule = [{ name, ms, ... }, ...]: a measured step (docs/manifest.md,
// "Measured schedules"), as `culprit reduce` writes it.

#include <string>
#include <vector>

#include "toml_reader.hpp"

namespace culprit::manifest::detail {

std::vector<stepmodel::SchedulePhase> parse_schedule(TomlReader& reader, const toml::node& node,
                                                     const std::string& path);

}  // namespace culprit::manifest::detail
