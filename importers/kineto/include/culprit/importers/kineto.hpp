#pragma once
// PyTorch profiler traces: Kineto JSON (libkineto layout, both timestamp styles) and the
// legacy `export_chrome_trace` array of a PyTorch built without Kineto.

#include <string>
#include <vector>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

// `bytes` is the whole (inflated) file; `file` names it in errors and warnings.
RankTrace parse_kineto(const std::string& bytes, const std::string& file);
RankTrace parse_legacy(const std::string& bytes, const std::string& file);

// The ranks of a job's Kineto files (docs/importers.md, "Ranks"). A file is one process's; a
// process whose kernels ran on several GPUs (device pids) is a rank per GPU (`by` auto or
// device; process keeps it one rank), numbered as the process's rank (distributedInfo, else the
// file name) x its GPUs + the GPU's place among them, with the job's world size scaled alike.
// Ranks of one file share its clock exactly. The rule is each rank's rank_source (and a warning).
std::vector<RankTrace> split_kineto_ranks(std::vector<RankTrace> files, RankBy by);

}  // namespace culprit::importers
