#include "telemetry_fields.hpp"

#include <array>
#include <utility>

namespace culprit::importers::telemetry {

std::optional<FieldOf> field_of(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, FieldOf>, 44> kFields = {{
      // dcgm-exporter, legacy (DCGM_FI_DEV_*) and profiling (DCGM_FI_PROF_*, ratios) names
      {"DCGM_FI_DEV_GPU_UTIL", {"GPU_UTIL", 1.0}},
      {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", {"GR_ENGINE_ACTIVE", 100.0}},
      {"DCGM_FI_PROF_SM_ACTIVE", {"SM_ACTIVE", 100.0}},
      {"DCGM_FI_PROF_SM_UTIL_RATIO", {"SM_ACTIVE", 100.0}},  // DCGM 4.x spelling
      {"DCGM_FI_PROF_SM_OCCUPANCY", {"SM_OCCUPANCY", 100.0}},
      {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", {"PIPE_TENSOR_ACTIVE", 100.0}},
      {"DCGM_FI_PROF_DRAM_ACTIVE", {"DRAM_ACTIVE", 100.0}},
      {"DCGM_FI_DEV_SM_CLOCK", {"SM_CLOCK", 1e6}},
      {"DCGM_FI_DEV_MEM_CLOCK", {"MEM_CLOCK", 1e6}},
      {"DCGM_FI_DEV_POWER_USAGE", {"POWER", 1.0}},
      {"DCGM_FI_DEV_GPU_TEMP", {"TEMPERATURE", 1.0}},
      {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", {"CLOCK_THROTTLE_REASONS", 1.0}},
      {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", {"CLOCK_THROTTLE_REASONS", 1.0}},
      // dcgmi dmon column names
      {"GPUTL", {"GPU_UTIL", 1.0}},
      {"GRACT", {"GR_ENGINE_ACTIVE", 100.0}},
      {"SMACT", {"SM_ACTIVE", 100.0}},
      {"SMOCC", {"SM_OCCUPANCY", 100.0}},
      {"TENSO", {"PIPE_TENSOR_ACTIVE", 100.0}},
      {"DRAMA", {"DRAM_ACTIVE", 100.0}},
      {"SMCLK", {"SM_CLOCK", 1e6}},
      {"MMCLK", {"MEM_CLOCK", 1e6}},
      {"POWER", {"POWER", 1.0}},
      {"GTEMP", {"TEMPERATURE", 1.0}},
      // nvidia-smi --query-gpu names (units come from the header)
      {"utilization.gpu", {"GPU_UTIL", 1.0}},
      {"clocks.sm", {"SM_CLOCK", 1e6}},
      {"clocks.current.sm", {"SM_CLOCK", 1e6}},
      {"clocks.mem", {"MEM_CLOCK", 1e6}},
      {"clocks.current.memory", {"MEM_CLOCK", 1e6}},
      {"power.draw", {"POWER", 1.0}},
      {"power.draw.instant", {"POWER", 1.0}},
      {"temperature.gpu", {"TEMPERATURE", 1.0}},
      {"clocks_throttle_reasons.active", {"CLOCK_THROTTLE_REASONS", 1.0}},
      {"clocks_event_reasons.active", {"CLOCK_THROTTLE_REASONS", 1.0}},
      // NVML CSV (the roofline profiler's nvml.csv) and similar loggers
      {"power_w", {"POWER", 1.0}},
      {"temperature_c", {"TEMPERATURE", 1.0}},
      {"sm_clock_mhz", {"SM_CLOCK", 1e6}},
      {"memory_clock_mhz", {"MEM_CLOCK", 1e6}},
      {"mem_clock_mhz", {"MEM_CLOCK", 1e6}},
      {"gpu_util_pct", {"GPU_UTIL", 1.0}},
      {"gpu_util", {"GPU_UTIL", 1.0}},
      {"sm_clock", {"SM_CLOCK", 1e6}},
      {"power", {"POWER", 1.0}},
      {"temperature", {"TEMPERATURE", 1.0}},
      {"throttle_reasons", {"CLOCK_THROTTLE_REASONS", 1.0}},
  }};
  for (const auto& [source, field] : kFields) {
    if (source == name) return field;
  }
  return std::nullopt;
}

}  // namespace culprit::importers::telemetry
