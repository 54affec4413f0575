// culprit-step: runs under mpirun; every rank executes the synthetic step, rank 0 writes the
// run file. A failing rank prints its rank and aborts the whole job with a nonzero status.

#include <mpi.h>

#include <cstdio>
#include <stdexcept>

#include "options.hpp"
#include "stepmodel/config.hpp"
#include "workload.hpp"

namespace {

constexpr int kUsageExit = 2;
constexpr int kRunFailedExit = 5;

}  // namespace

int main(int argc, char** argv) {
  int exit_code = 0;
  const auto options = synthetic::parse_options(argc, argv, exit_code);
  if (!options) return exit_code;

  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  // Every rank reads the same file, so every rank reaches the same verdict on it.
  stepmodel::RunConfig config;
  std::string config_text;
  try {
    config_text = stepmodel::read_run_config_text(options->config_path);
    config = stepmodel::parse_run_config(config_text);
    synthetic::check_runnable(config, ranks);
    if (config.model.overlap && provided < MPI_THREAD_SERIALIZED) {
      throw std::invalid_argument(
          "model.overlap: this MPI library gives no thread support; set overlap = false");
    }
  } catch (const std::exception& e) {
    if (rank == 0) {
      std::fprintf(stderr, "culprit-step: %s (%s)\n", e.what(), options->config_path.c_str());
    }
    MPI_Finalize();
    return kUsageExit;
  }

  try {
    synthetic::run_workload(config, config_text, options->run_file, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "culprit-step: rank %d: error: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, kRunFailedExit);
    return kRunFailedExit;
  }
  MPI_Finalize();
  return 0;
}
