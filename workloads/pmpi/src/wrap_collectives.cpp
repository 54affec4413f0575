// Blocking collectives (docs/pmpi.md). bytes: the payload this rank contributes (its send
// count times the send type's size; MPI_Bcast: the broadcast buffer; MPI_Reduce_scatter: the
// whole vector reduced).

#include "wrap.hpp"

using culprit::pmpi::collective;
using culprit::pmpi::type_bytes;
namespace calls = culprit::pmpi;

namespace {

int comm_size(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

std::int64_t sum_bytes(const int counts[], MPI_Datatype type, MPI_Comm comm) {
  std::int64_t total = 0;
  const int n = counts ? comm_size(comm) : 0;
  for (int i = 0; i < n; ++i) total += counts[i];
  return type_bytes(static_cast<int>(total), type);
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  return collective(
      calls::kBarrier, comm, [] { return std::int64_t{0}; }, [&] { return PMPI_Barrier(comm); });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return collective(
      calls::kBcast, comm, [&] { return type_bytes(count, type); },
      [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

int MPI_Reduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  return collective(
      calls::kReduce, comm, [&] { return type_bytes(count, type); },
      [&] { return PMPI_Reduce(send, recv, count, type, op, root, comm); });
}

int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return collective(
      calls::kAllreduce, comm, [&] { return type_bytes(count, type); },
      [&] { return PMPI_Allreduce(send, recv, count, type, op, comm); });
}

int MPI_Gather(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
               MPI_Datatype recv_type, int root, MPI_Comm comm) {
  return collective(
      calls::kGather, comm, [&] { return type_bytes(send_count, send_type); },
      [&] {
        return PMPI_Gather(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
      });
}

int MPI_Gatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                const int recv_counts[], const int displs[], MPI_Datatype recv_type, int root,
                MPI_Comm comm) {
  return collective(
      calls::kGatherv, comm, [&] { return type_bytes(send_count, send_type); },
      [&] {
        return PMPI_Gatherv(send, send_count, send_type, recv, recv_counts, displs, recv_type, root,
                            comm);
      });
}

int MPI_Scatter(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  return collective(
      calls::kScatter, comm, [&] { return type_bytes(recv_count, recv_type); },
      [&] {
        return PMPI_Scatter(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
      });
}

int MPI_Scatterv(const void* send, const int send_counts[], const int displs[],
                 MPI_Datatype send_type, void* recv, int recv_count, MPI_Datatype recv_type,
                 int root, MPI_Comm comm) {
  return collective(
      calls::kScatterv, comm, [&] { return type_bytes(recv_count, recv_type); },
      [&] {
        return PMPI_Scatterv(send, send_counts, displs, send_type, recv, recv_count, recv_type,
                             root, comm);
      });
}

int MPI_Allgather(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  return collective(
      calls::kAllgather, comm, [&] { return type_bytes(send_count, send_type); },
      [&] {
        return PMPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm);
      });
}

int MPI_Allgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                   const int recv_counts[], const int displs[], MPI_Datatype recv_type,
                   MPI_Comm comm) {
  return collective(
      calls::kAllgatherv, comm, [&] { return type_bytes(send_count, send_type); },
      [&] {
        return PMPI_Allgatherv(send, send_count, send_type, recv, recv_counts, displs, recv_type,
                               comm);
      });
}

int MPI_Alltoall(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                 int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  return collective(
      calls::kAlltoall, comm, [&] { return type_bytes(send_count, send_type) * comm_size(comm); },
      [&] {
        return PMPI_Alltoall(send, send_count, send_type, recv, recv_count, recv_type, comm);
      });
}

int MPI_Alltoallv(const void* send, const int send_counts[], const int send_displs[],
                  MPI_Datatype send_type, void* recv, const int recv_counts[],
                  const int recv_displs[], MPI_Datatype recv_type, MPI_Comm comm) {
  return collective(
      calls::kAlltoallv, comm, [&] { return sum_bytes(send_counts, send_type, comm); },
      [&] {
        return PMPI_Alltoallv(send, send_counts, send_displs, send_type, recv, recv_counts,
                              recv_displs, recv_type, comm);
      });
}

int MPI_Alltoallw(const void* send, const int send_counts[], const int send_displs[],
                  const MPI_Datatype send_types[], void* recv, const int recv_counts[],
                  const int recv_displs[], const MPI_Datatype recv_types[], MPI_Comm comm) {
  return collective(
      calls::kAlltoallw, comm,
      [&] {
        std::int64_t total = 0;
        const int n = send_counts && send_types ? comm_size(comm) : 0;
        for (int i = 0; i < n; ++i) total += type_bytes(send_counts[i], send_types[i]);
        return total;
      },
      [&] {
        return PMPI_Alltoallw(send, send_counts, send_displs, send_types, recv, recv_counts,
                              recv_displs, recv_types, comm);
      });
}

int MPI_Reduce_scatter(const void* send, void* recv, const int recv_counts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm) {
  return collective(
      calls::kReduceScatter, comm, [&] { return sum_bytes(recv_counts, type, comm); },
      [&] { return PMPI_Reduce_scatter(send, recv, recv_counts, type, op, comm); });
}

int MPI_Reduce_scatter_block(const void* send, void* recv, int recv_count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  return collective(
      calls::kReduceScatterBlock, comm,
      [&] { return type_bytes(recv_count, type) * comm_size(comm); },
      [&] { return PMPI_Reduce_scatter_block(send, recv, recv_count, type, op, comm); });
}

int MPI_Scan(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective(
      calls::kScan, comm, [&] { return type_bytes(count, type); },
      [&] { return PMPI_Scan(send, recv, count, type, op, comm); });
}

int MPI_Exscan(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  return collective(
      calls::kExscan, comm, [&] { return type_bytes(count, type); },
      [&] { return PMPI_Exscan(send, recv, count, type, op, comm); });
}

}  // extern "C"
