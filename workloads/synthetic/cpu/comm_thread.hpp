#pragma once
// A communication thread for overlapped gradient all-reduces on the CPU backend. Open MPI's
// non-blocking collectives only progress inside MPI calls, so a bucket's MPI_Iallreduce would
// sit idle while the main thread runs BLAS; a thread that owns the blocking MPI_Allreduce
// gives real progress. Hand-off is by atomics (futex wait/notify): no lock, no allocation.

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "../backend.hpp"
#include "../injection.hpp"

namespace synthetic {

struct AllreduceJob {
  void* data = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_FLOAT;
  stepclock_ids ids{};  // the event's (phase_ids)
  std::uint16_t name = 0;
  PhaseDelay delay;  // late arrival: spent before the call
};

// Runs one all-reduce with its event (arrival = call entry, completion = return); returns
// the MPI error code.
int timed_allreduce(const AllreduceJob& job, MPI_Comm comm);

class CommThread;

// The all-reduce of phase `work` over `count` elements of `type` at `data` on MPI_COMM_WORLD:
// posted on `comm` when the phase is asynchronous and there is a communication thread, else run
// now. A failed MPI call throws, naming the `unit` (bucket, collective) and the phase's seq.
void allreduce_phase(const PhaseWork& work, void* data, int count, MPI_Datatype type,
                     CommThread* comm, const char* unit);

class CommThread {
 public:
  CommThread(MPI_Comm comm, std::size_t max_in_flight);
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;
  ~CommThread();

  void post(const AllreduceJob& job);
  void wait_all();  // returns when every posted job has completed

 private:
  void loop();

  MPI_Comm comm_;
  std::vector<AllreduceJob> ring_;
  std::atomic<std::uint64_t> posted_{0};
  std::atomic<std::uint64_t> completed_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace synthetic
