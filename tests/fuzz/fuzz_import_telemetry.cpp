// Fuzz entry point: arbitrary bytes as GPU telemetry in each format (dcgm-exporter text or
// dcgmi dmon, nvidia-smi csv, NVML csv), then what explain does with the samples once they are
// on ranks and on a run's clock (averages per step window, the map, the clock evidence), and
// the same bytes as a --gpu-rank list. Accepted outcome: a culprit::UsageError naming the file
// and line; any other exception, crash, leak or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "culprit/analysis/gpu_ranks.hpp"
#include "culprit/analysis/telemetry_view.hpp"
#include "culprit/analysis/why_telemetry.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/telemetry.hpp"

namespace {

void analyse(const culprit::importers::telemetry::Series& series) {
  using namespace culprit::analysis;
  std::vector<culprit::storage::TelemetryRow> rows;
  for (const auto& s : series.samples) {
    // Untimed samples 0.1 s apart; GPU index = rank, as with --gpu-rank 0=0,1=1,...
    const double t = s.time_s ? *s.time_s : s.index * 0.1;
    rows.push_back({s.gpu, s.gpu, s.host, series.file, s.field, t * 1e9, s.value});
  }
  const double first = rows.empty() ? 0.0 : rows.front().time_ns;
  std::vector<StepWindow> steps;
  for (int i = 0; i < 4; ++i)
    steps.push_back({i, i == 0, {first + i * 1e8, first + (i + 1) * 1e8}});
  run_telemetry(rows, 1, steps);
  telemetry_map(rows, steps);
  if (!rows.empty()) {
    clock_evidence(rows, rows.front().rank, {steps[1].window, steps[2].window}, "fuzz");
    clock_evidence(series, rows.front().rank, {});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace culprit::importers::telemetry;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (const Format f : {Format::kDcgm, Format::kNvidiaSmi, Format::kNvmlCsv}) {
    try {
      analyse(parse_telemetry(bytes, "fuzz.txt", f));
    } catch (const culprit::UsageError&) {
    }
  }
  try {
    culprit::analysis::parse_gpu_rank(bytes.substr(0, 256));
  } catch (const culprit::UsageError&) {
  }
  return 0;
}
