/* A plain C program instrumented with the stepclock C API: proves the header is C and that an
 * application linking stepclock writes a run file (checked by c_api.sh). */
#include <stdio.h>
#include <stepclock/stepclock.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (stepclock_init(MPI_COMM_WORLD, 64) != 0) {
    fprintf(stderr, "c_api_example: %s\n", stepclock_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const uint16_t fwd = stepclock_name("gemm.fwd");
  const uint16_t allreduce = stepclock_name("allreduce");
  stepclock_set_meta("source", "c-api-example");
  stepclock_sync_start(10);
  for (int32_t step = 0; step < 3; ++step) {
    const stepclock_region s = stepclock_step_begin(step);
    const stepclock_ids gemm_ids = {step, 0, 0, -1, 0};
    stepclock_region r = stepclock_begin(STEPCLOCK_COMPUTE, fwd, gemm_ids);
    stepclock_end(r);
    double value = 1.0;
    const stepclock_ids reduce_ids = {step, -1, -1, 0, (int64_t)sizeof value};
    r = stepclock_begin(STEPCLOCK_COLLECTIVE, allreduce, reduce_ids);
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    stepclock_end(r);
    stepclock_step_end(s);
  }
  stepclock_sync_end(10);
  const int rc = stepclock_write_run_file(argv[1], "{\"example\": true}");
  if (rc != 0) fprintf(stderr, "c_api_example: %s\n", stepclock_last_error());
  stepclock_finalize();
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
