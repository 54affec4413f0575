// Peaks for the roofline: a peaks file's row, or the device table (docs/methodology.md cites
// the datasheet of every figure; tensor figures are dense, without 2:4 sparsity).
#include <array>
#include <string>

#include "culprit/analysis/why.hpp"
#include "culprit/errors.hpp"

namespace culprit::analysis {
namespace {

struct DeviceRow {
  const char* device;
  double fp32, tf32, bf16, fp8;  // TFLOP/s; 0: the device has no such unit
  double hbm_tb_s;
  const char* source;
};

constexpr std::array<DeviceRow, 4> kDevices = {{
    {"A100", 19.5, 156.0, 312.0, 0.0, 2.039, "NVIDIA A100 datasheet (SXM4 80GB)"},
    {"H100", 67.0, 494.7, 989.4, 1978.9, 3.35, "NVIDIA H100 datasheet (SXM5)"},
    {"H200", 67.0, 494.7, 989.4, 1978.9, 4.8, "NVIDIA H200 datasheet (SXM)"},
    {"B200", 80.0, 1100.0, 2250.0, 4500.0, 8.0, "NVIDIA HGX B200 datasheet (1,000 W)"},
}};

double pick(const DeviceRow& row, const std::string& precision) {
  if (precision == "fp32") return row.fp32;
  if (precision == "tf32") return row.tf32;
  if (precision == "bf16" || precision == "fp16") return row.bf16;
  if (precision == "fp8") return row.fp8;
  throw UsageError("--precision " + precision + ": use fp32, tf32, bf16, fp16 or fp8");
}

}  // namespace

WhyPeaks peaks_from(const importers::Peaks& p) {
  return WhyPeaks{p.flops_per_s, p.bytes_per_s, p.source};
}

WhyPeaks device_peaks(const std::string& device, const std::string& precision) {
  for (const DeviceRow& row : kDevices) {
    if (device != row.device) continue;
    const double tflops = pick(row, precision);
    if (tflops == 0.0) {
      throw UsageError("--device " + device + " has no " + precision +
                       " tensor unit: choose another --precision");
    }
    return WhyPeaks{tflops * 1e12, row.hbm_tb_s * 1e12,
                    std::string(row.device) + " " + precision + " (" + row.source + ")"};
  }
  throw UsageError("--device " + device +
                   ": the table knows A100, H100, H200, B200; pass --peaks FILE for another");
}

}  // namespace culprit::analysis
