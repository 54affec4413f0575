#pragma once
// GPU telemetry -> typed samples: dcgm-exporter's Prometheus text (with or without {labels},
// # HELP / # TYPE, legacy and DCGM 4.x field names, series of scrapes with or without
// timestamps), `dcgmi dmon` text (#Entity header repeated, an ID/units line, GPU n rows in any
// order, N/A), `nvidia-smi --query-gpu=... --format=csv` (units in the header, [N/A]) and a
// timestamped NVML CSV (timestamp,power_w,...,gpu_util_pct). Values carried into one set of
// fields and units (units.hpp). Bad input throws culprit::UsageError naming the file and line.

#include <optional>
#include <string>
#include <vector>

namespace culprit::importers::telemetry {

enum class Format { kDcgm, kDcgmDmon, kNvidiaSmi, kNvmlCsv };
// dcgm (Prometheus text or dmon, told apart by content) | nvidia-smi | nvml-csv
Format parse_format(const std::string& name);

// The fields kept: GPU_UTIL, GR_ENGINE_ACTIVE, SM_ACTIVE, SM_OCCUPANCY, PIPE_TENSOR_ACTIVE,
// DRAM_ACTIVE (all %), SM_CLOCK, MEM_CLOCK (hz), POWER (W), TEMPERATURE (C),
// CLOCK_THROTTLE_REASONS (the bitmask).
struct Sample {
  int gpu = 0;
  std::string host;
  std::optional<double> time_s;  // Unix seconds; nullopt: the format has no timestamps
  int index = 0;                 // the GPU's sample number in the file (0, 1, ...)
  std::string field;
  double value = 0.0;
  int line = 0;
};

struct Series {
  std::string file;
  Format format = Format::kDcgm;
  std::vector<Sample> samples;
  std::vector<std::string> warnings;
  bool timestamps() const;  // every sample has a time
};

Series parse_telemetry(const std::string& bytes, const std::string& file, Format format);
Series read_telemetry(const std::string& path, Format format);

// "2026-07-22T21:41:45.304Z" or "2024/01/31 10:00:00.123" (UTC) -> Unix seconds.
std::optional<double> parse_time(const std::string& text);

}  // namespace culprit::importers::telemetry
