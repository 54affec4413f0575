// Fuzz entry point: arbitrary bytes as an Nsight Compute CSV export (and, the same bytes, as a
// peaks file), then the verdict of the export against itself. Accepted outcome: a
// culprit::UsageError (it names the file and line); any other exception, crash, leak or hang is a
// bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "culprit/analysis/why.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/ncu.hpp"
#include "culprit/importers/peaks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const auto report = culprit::importers::ncu::parse_ncu_csv(bytes, "fuzz.csv");
    const auto kernels = culprit::analysis::group_kernels(report);
    culprit::analysis::WhyOptions options;
    options.peaks = {1e12, 1e11, "fuzz"};
    options.flops = 1e9;
    culprit::analysis::why_verdict(&kernels, kernels, options);
    culprit::analysis::why_verdict(nullptr, kernels, options);
  } catch (const culprit::UsageError&) {
  }
  try {
    culprit::importers::parse_peaks(bytes, "peaks.csv");
  } catch (const culprit::UsageError&) {
  }
  return 0;
}
