#pragma once
// Nsight Systems SQLite exports (`nsys export --type sqlite`), one file per rank: kernels,
// CUDA runtime calls, NVTX ranges (steps and regions), names through StringIds. Both schema
// generations (EXPORT_META_DATA of 2022.x, META_DATA_EXPORT of 2023.x and later) are read.

#include <string>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

// Reads the export at `path` (opened read-only). UsageError naming the file and the table on
// anything missing or of an unknown schema.
RankTrace parse_nsys(const std::string& path);

}  // namespace culprit::importers
