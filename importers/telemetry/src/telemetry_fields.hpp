#pragma once
// The one table of telemetry field names (DCGM, dcgmi dmon, nvidia-smi, NVML CSV) -> the fields
// culprit keeps, with the factor into their unit (DCGM's profiling ratios 0..1 -> %).
#include <optional>
#include <string>
#include <string_view>

namespace culprit::importers::telemetry {

struct FieldOf {
  const char* field;
  double factor;  // into the field's unit, when the source states no unit
};

std::optional<FieldOf> field_of(std::string_view source_name);

}  // namespace culprit::importers::telemetry
