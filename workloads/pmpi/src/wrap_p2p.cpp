// Waits of point-to-point exchanges (docs/pmpi.md): recorded as host events named after the
// call, never matched across ranks. Sends, MPI_Isend/MPI_Irecv and tests are not intercepted:
// their time belongs to the compute phase around them.

#include "wrap.hpp"

using culprit::pmpi::wait;
namespace calls = culprit::pmpi;

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return wait(calls::kWait, [&] { return PMPI_Wait(request, status); });
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return wait(calls::kWaitall, [&] { return PMPI_Waitall(count, requests, statuses); });
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return wait(calls::kWaitany, [&] { return PMPI_Waitany(count, requests, index, status); });
}

int MPI_Waitsome(int count, MPI_Request requests[], int* done, int indices[],
                 MPI_Status statuses[]) {
  return wait(calls::kWaitsome,
              [&] { return PMPI_Waitsome(count, requests, done, indices, statuses); });
}

int MPI_Sendrecv(const void* send, int send_count, MPI_Datatype send_type, int dest, int send_tag,
                 void* recv, int recv_count, MPI_Datatype recv_type, int source, int recv_tag,
                 MPI_Comm comm, MPI_Status* status) {
  return wait(calls::kSendrecv, [&] {
    return PMPI_Sendrecv(send, send_count, send_type, dest, send_tag, recv, recv_count, recv_type,
                         source, recv_tag, comm, status);
  });
}

int MPI_Sendrecv_replace(void* buffer, int count, MPI_Datatype type, int dest, int send_tag,
                         int source, int recv_tag, MPI_Comm comm, MPI_Status* status) {
  return wait(calls::kSendrecvReplace, [&] {
    return PMPI_Sendrecv_replace(buffer, count, type, dest, send_tag, source, recv_tag, comm,
                                 status);
  });
}

int MPI_Recv(void* buffer, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  return wait(calls::kRecv,
              [&] { return PMPI_Recv(buffer, count, type, source, tag, comm, status); });
}

}  // extern "C"
