/* An outside C program instrumented with the installed stepclock: it reads its step count from
 * the resolved configuration (stepclock_config_int), times that many steps of one "GEMM" and one
 * all-reduce per rank and writes a run file. Built by install_package.sh three ways: pkg-config
 * (shared), pkg-config --static, and CMake find_package(stepclock). */
#include <mpi.h>
#include <stdio.h>
#include <stepclock/stepclock.h>
#include <time.h>

static int check(int rc, const char* what) {
  if (rc != 0) fprintf(stderr, "app: %s: %s\n", what, stepclock_last_error());
  return rc;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: app RUNFILE (config in $CULPRIT_CONFIG)\n");
    return 2;
  }
  int64_t steps = 0;
  if (check(stepclock_config_int("steps", &steps), "config steps") != 0) return 1;
  const char* name = stepclock_config_string("model.name");
  MPI_Init(&argc, &argv);
  if (check(stepclock_init(MPI_COMM_WORLD, 4096), "init") != 0) return 1;
  uint16_t gemm = stepclock_name("gemm.fwd"), allreduce = stepclock_name("allreduce");
  stepclock_set_meta("source", name ? name : "outside-c");
  stepclock_set_meta("warmup_steps", "1");
  check(stepclock_sync_start(10), "sync start");
  for (int32_t step = 0; step < (int32_t)steps; ++step) {
    stepclock_region s = stepclock_step_begin(step);
    stepclock_ids ids = {step, 0, 0, -1, 0};
    stepclock_region r = stepclock_begin(STEPCLOCK_COMPUTE, gemm, ids);
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
    stepclock_end(r);
    double x = 1, y = 0;
    stepclock_ids cids = {step, -1, -1, 0, 8};
    r = stepclock_begin(STEPCLOCK_COLLECTIVE, allreduce, cids);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    stepclock_end(r);
    stepclock_step_end(s);
  }
  check(stepclock_sync_end(10), "sync end");
  if (check(stepclock_write_run_file(argv[1], "{}"), "write run file") != 0) return 1;
  stepclock_finalize();
  MPI_Finalize();
  return 0;
}
