// MPI_Init / MPI_Init_thread start recording, MPI_Finalize ends it and writes the run file,
// MPI_Pcontrol marks steps, and the calls that create communicators register them.

#include "wrap.hpp"

using culprit::pmpi::recorder;

namespace {

template <typename Create>
int created(MPI_Comm* out, Create pmpi) {
  const int rc = pmpi();
  if (rc == MPI_SUCCESS && recorder().active()) recorder().comms().register_created(*out);
  return rc;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) recorder().start(MPI_THREAD_SINGLE);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) recorder().start(*provided);
  return rc;
}

int MPI_Finalize(void) {
  recorder().finish();
  return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...) {
  if (recorder().active()) recorder().pcontrol(level);
  return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  return created(out, [&] { return PMPI_Comm_dup(comm, out); });
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* out) {
  return created(out, [&] { return PMPI_Comm_dup_with_info(comm, info, out); });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  return created(out, [&] { return PMPI_Comm_split(comm, color, key, out); });
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) {
  return created(out, [&] { return PMPI_Comm_split_type(comm, type, key, info, out); });
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  return created(out, [&] { return PMPI_Comm_create(comm, group, out); });
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* out) {
  return created(out, [&] { return PMPI_Cart_create(comm, ndims, dims, periods, reorder, out); });
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm* out) {
  return created(out, [&] { return PMPI_Cart_sub(comm, remain, out); });
}

}  // extern "C"
