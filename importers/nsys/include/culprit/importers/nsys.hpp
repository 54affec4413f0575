#pragma once
// Nsight Systems SQLite exports (`nsys export --type sqlite`), one file per rank or per node:
// kernels, CUDA runtime calls, NVTX ranges (steps and regions), names through StringIds. Both
// schema generations (EXPORT_META_DATA of 2022.x, META_DATA_EXPORT of 2023.x and later) are read.

#include <string>
#include <vector>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

// Reads the export at `path` (opened read-only). UsageError naming the file and the table on
// anything missing or of an unknown schema.
RankTrace parse_nsys(const std::string& path);

// The ranks of a job's exports (docs/importers.md, "Ranks"), one export per rank or per node:
// an export with one process that ran kernels is one rank; one with several is split into a
// RankTrace per process, or per device (`by`, or where one process drives several GPUs). Each is
// numbered by the rank it says (file name, launched process's environment or command line, MPI
// Rank mark, NCCL communicator rank) when every rank says a distinct one; else, in one export,
// by device id, else by order; else, over several exports, by its number within its node plus
// the node's offset. The rule is each rank's rank_source (and a warning). Events of processes
// that ran no kernel are left out (warned).
std::vector<RankTrace> split_nsys_ranks(std::vector<RankTrace> files, RankBy by);

}  // namespace culprit::importers
