#pragma once
// What a run file records about where and how a rank ran (docs/schema.md, provenance).

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace stepclock {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// This rank's facts: host, pid, CPU binding, OMPI_*/SLURM_*/NCCL_*/CUDA_* environment.
KeyValues rank_provenance();

// Facts about the whole job, computed collectively (every rank must call): command line,
// binary hash, MPI library version, ranks per core, oversubscription and yield mode.
KeyValues job_provenance(MPI_Comm comm);

std::string host_name();
std::string iso8601_utc_now();

}  // namespace stepclock
