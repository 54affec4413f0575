#pragma once
// A peaks file: the device's peak FLOP/s and DRAM bandwidth, like the roofline profiler's
// peaks.csv (`label,peak_flops,peak_bandwidth`, rows `theoretical` and `measured`). Columns by
// name; the `measured` row is preferred over `theoretical` (a measured ceiling is what the
// kernel can reach), else the first row.

#include <string>

namespace culprit::importers {

struct Peaks {
  double flops_per_s = 0.0;  // 0 when unknown
  double bytes_per_s = 0.0;  // 0 when unknown
  std::string source;        // e.g. "peaks.csv (measured)"
};

Peaks parse_peaks(const std::string& bytes, const std::string& file);
Peaks read_peaks(const std::string& path);

}  // namespace culprit::importers
