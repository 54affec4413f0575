#pragma once
// `culprit import --format ncu|dcgm|nvidia-smi|nvml-csv --attach RUN[:RANK]`: evidence about a
// stored run, not a run (import.cpp dispatches here).
#include <string>
#include <vector>

#include "subcommand.hpp"

namespace culprit::cli {

struct EvidenceArgs {
  std::string attach;  // RUN[:RANK]
  std::string phase;
  std::string gpu_rank;  // GPU=RANK,...
  std::string host;      // the host a telemetry file without host names was taken on
  std::string start;     // ISO-8601 time of the first sample (formats without timestamps)
  double period_ms = 0;  // sample period (formats without timestamps)
};

// True for the formats that attach evidence instead of importing a run.
bool is_evidence_format(const std::string& format);
void add_evidence_options(CLI::App& command, EvidenceArgs& args);
void import_evidence(const CommonOptions& common, const std::vector<std::string>& paths,
                     const std::string& format, const EvidenceArgs& args);

}  // namespace culprit::cli
