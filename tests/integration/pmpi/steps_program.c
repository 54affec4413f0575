/* A small MPI program of our own, written like any application: no culprit header, no culprit
 * call. Each step: compute (sleep, so that two ranks on a loaded machine stay stable), a halo
 * exchange with the neighbour ranks (MPI_Irecv/MPI_Send/MPI_Wait), more compute, an
 * MPI_Allreduce of 8 bytes, an MPI_Bcast on a duplicated communicator, then MPI_Pcontrol(1)
 * marks the end of the step. Every rank notes MPI_Wtime at each marker; at the end rank 0
 * prints the program's own timing of every step, from the moment the last rank ended the
 * previous step to the moment the last rank ended this one (the ranks share one host clock):
 *   step <index> <ms>
 * Usage: steps_program STEPS COMPUTE_MS [SLOW_RANK SLOW_MS] */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void compute(double ms) {
  struct timespec t;
  t.tv_sec = (time_t)(ms / 1000);
  t.tv_nsec = (long)((ms - 1000.0 * (double)t.tv_sec) * 1e6);
  nanosleep(&t, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int steps = argc > 1 ? atoi(argv[1]) : 20;
  const double compute_ms = argc > 2 ? atof(argv[2]) : 10;
  const int slow_rank = argc > 4 ? atoi(argv[3]) : -1;
  const double slow_ms = argc > 4 ? atof(argv[4]) : 0;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  double* marks = calloc((size_t)steps + 1, sizeof(double));
  double* latest = calloc((size_t)steps + 1, sizeof(double));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Pcontrol(1);
  marks[0] = MPI_Wtime();
  for (int s = 0; s < steps; ++s) {
    compute(compute_ms / 2);
    double halo_out = rank, halo_in = 0;
    MPI_Request request;
    MPI_Irecv(&halo_in, 1, MPI_DOUBLE, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &request);
    MPI_Send(&halo_out, 1, MPI_DOUBLE, (rank + 1) % size, 1, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    compute(compute_ms / 2 + (rank == slow_rank ? slow_ms : 0));
    double local = halo_in, global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int flag = (int)global;
    MPI_Bcast(&flag, 1, MPI_INT, 0, dup);
    MPI_Pcontrol(1);
    marks[s + 1] = MPI_Wtime();
  }
  MPI_Reduce(marks, latest, steps + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  for (int s = 0; rank == 0 && s < steps; ++s) {
    printf("step %d %.4f\n", s, (latest[s + 1] - latest[s]) * 1e3);
  }
  free(marks);
  free(latest);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
