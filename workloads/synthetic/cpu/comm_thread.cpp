#include "comm_thread.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "stepclock/stepclock.hpp"

namespace synthetic {

int timed_allreduce(const AllreduceJob& job, MPI_Comm comm) {
  spend_on_host(job.delay);
  const stepclock_region region = stepclock_begin(STEPCLOCK_COLLECTIVE, job.name, job.ids);
  const int rc = MPI_Allreduce(MPI_IN_PLACE, job.data, job.count, job.type, MPI_SUM, comm);
  stepclock_end(region);
  return rc;
}

void allreduce_phase(const PhaseWork& work, void* data, int count, MPI_Datatype type,
                     CommThread* comm, const char* unit) {
  const stepmodel::Phase& p = *work.phase;
  const AllreduceJob job{.data = data,
                         .count = count,
                         .type = type,
                         .ids = phase_ids(work),
                         .name = work.name,
                         .delay = work.delay};
  if (p.asynchronous && comm != nullptr) {
    comm->post(job);
  } else if (timed_allreduce(job, MPI_COMM_WORLD) != MPI_SUCCESS) {
    throw std::runtime_error(std::string("MPI_Allreduce of ") + unit + " " + std::to_string(p.seq) +
                             " failed");
  }
}

CommThread::CommThread(MPI_Comm comm, std::size_t max_in_flight)
    : comm_(comm), ring_(max_in_flight), thread_([this] { loop(); }) {}

CommThread::~CommThread() {
  stop_.store(true, std::memory_order_release);
  posted_.fetch_add(1, std::memory_order_release);
  posted_.notify_one();
  thread_.join();
}

void CommThread::post(const AllreduceJob& job) {
  const std::uint64_t index = posted_.load(std::memory_order_relaxed);
  if (index - completed_.load(std::memory_order_acquire) >= ring_.size()) {
    throw std::logic_error("communication thread: more all-reduces in flight than buckets");
  }
  ring_[index % ring_.size()] = job;
  posted_.store(index + 1, std::memory_order_release);
  posted_.notify_one();
}

void CommThread::wait_all() {
  const std::uint64_t target = posted_.load(std::memory_order_relaxed);
  for (std::uint64_t done = completed_.load(std::memory_order_acquire); done < target;
       done = completed_.load(std::memory_order_acquire)) {
    completed_.wait(done, std::memory_order_acquire);
  }
}

void CommThread::loop() {
  std::uint64_t next = 0;
  for (;;) {
    std::uint64_t posted = posted_.load(std::memory_order_acquire);
    while (posted == next) {
      posted_.wait(posted, std::memory_order_acquire);
      posted = posted_.load(std::memory_order_acquire);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    const AllreduceJob& job = ring_[next % ring_.size()];
    if (timed_allreduce(job, comm_) != MPI_SUCCESS) {
      int rank = 0;
      MPI_Comm_rank(comm_, &rank);
      std::fprintf(stderr, "culprit-step: rank %d: MPI_Allreduce of bucket %d failed at step %d\n",
                   rank, job.ids.seq, job.ids.step);
      MPI_Abort(comm_, 5);
    }
    ++next;
    completed_.store(next, std::memory_order_release);
    completed_.notify_all();
  }
}

}  // namespace synthetic
