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

// How long this process's threads waited for a CPU while runnable, and ran, since boot (Linux
// /proc/self/task/*/schedstat, summed over the threads alive now). -1: not readable.
struct CpuWaitSample {
  long long wait_ns = -1;
  long long cpu_ns = -1;
  long long wall_ns = 0;  // monotonic clock when sampled
};
CpuWaitSample sample_cpu_wait();

// How long the calling thread has waited for a CPU while runnable, since it started (Linux
// /proc/thread-self/schedstat); -1 when unreadable. One pread of a file the thread keeps open:
// per step and per collective of the stepping thread, not per phase.
long long thread_cpu_wait_ns();

// The sched.* provenance of one rank over [start, end]: what another process sharing its core
// costs it (docs/schema.md). Empty when either sample is unreadable.
KeyValues cpu_wait_provenance(const CpuWaitSample& start, const CpuWaitSample& end);

std::string host_name();

}  // namespace stepclock
