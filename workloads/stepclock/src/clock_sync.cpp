#include "clock_sync.hpp"

#include <cstdint>

namespace stepclock {
namespace {

constexpr int kPingTag = 7301;
constexpr int kPongTag = 7302;

}  // namespace

std::vector<OffsetEstimate> exchange_clocks(MPI_Comm comm, const RawClock& clock, int exchanges) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank != 0) {
    for (int k = 0; k < exchanges; ++k) {
      char ping = 0;
      MPI_Recv(&ping, 1, MPI_CHAR, 0, kPingTag, comm, MPI_STATUS_IGNORE);
      const std::int64_t peer_ns = clock.now();
      MPI_Send(&peer_ns, 1, MPI_INT64_T, 0, kPongTag, comm);
    }
    return {};
  }
  std::vector<OffsetEstimate> estimates(static_cast<std::size_t>(size));
  estimates[0] = OffsetEstimate{clock.now(), 0.0, 0.0, true};
  std::vector<PingPong> samples(static_cast<std::size_t>(exchanges));
  for (int peer = 1; peer < size; ++peer) {
    for (int k = 0; k < exchanges; ++k) {
      PingPong& x = samples[static_cast<std::size_t>(k)];
      const char ping = 0;
      x.send_ns = clock.now();
      MPI_Send(&ping, 1, MPI_CHAR, peer, kPingTag, comm);
      MPI_Recv(&x.peer_ns, 1, MPI_INT64_T, peer, kPongTag, comm, MPI_STATUS_IGNORE);
      x.recv_ns = clock.now();
    }
    estimates[static_cast<std::size_t>(peer)] = best_offset(samples);
  }
  return estimates;
}

}  // namespace stepclock
