/* A small MPI program of our own that creates and frees communicators without end, as solvers
 * that split per phase do: ITERATIONS times MPI_Comm_split of the world (all ranks, one
 * color), an MPI_Barrier on the new communicator, MPI_Comm_free, then MPI_Pcontrol(1) (a step
 * boundary). No culprit header, no culprit call.
 * Usage: comm_churn ITERATIONS */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iterations = argc > 1 ? atoi(argv[1]) : 120;
  MPI_Pcontrol(1);
  for (int i = 0; i < iterations; ++i) {
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &part);
    MPI_Barrier(part);
    MPI_Comm_free(&part);
    MPI_Pcontrol(1);
  }
  MPI_Finalize();
  return 0;
}
