#pragma once
// Nsight Systems SQLite exports (`nsys export --type sqlite`), one file per rank: kernels,
// CUDA runtime calls, NVTX ranges (steps and regions), names through StringIds. Both schema
// generations (EXPORT_META_DATA of 2022.x, META_DATA_EXPORT of 2023.x and later) are read.

#include <string>
#include <vector>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

// Reads the export at `path` (opened read-only). UsageError naming the file and the table on
// anything missing or of an unknown schema.
RankTrace parse_nsys(const std::string& path);

// The ranks of one export (docs/importers.md, "Ranks"): a file with one process that ran
// kernels stays one rank (numbered by its file name, else the launched process's environment or
// command line, else its MPI Rank mark); several are split into one RankTrace each, a rank per
// process, or per device (`by`, or where one process drives several GPUs), numbered by the
// rank each process says, else the device id, else their order. Events of processes that ran
// no kernel are left out (warned).
std::vector<RankTrace> split_nsys_ranks(RankTrace whole, RankBy by);

}  // namespace culprit::importers
