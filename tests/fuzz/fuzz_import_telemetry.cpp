// Fuzz entry point: arbitrary bytes as GPU telemetry in each format (dcgm-exporter text or
// dcgmi dmon, nvidia-smi csv, NVML csv). Accepted outcome: a culprit::UsageError naming the file
// and line; any other exception, crash, leak or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/importers/telemetry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace culprit::importers::telemetry;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (const Format f : {Format::kDcgm, Format::kNvidiaSmi, Format::kNvmlCsv}) {
    try {
      parse_telemetry(bytes, "fuzz.txt", f);
    } catch (const culprit::UsageError&) {
    }
  }
  return 0;
}
