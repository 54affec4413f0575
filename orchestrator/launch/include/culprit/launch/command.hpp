#pragma once
// How one run of a configuration is started: the launcher (mpirun, srun, or the simulator as a
// single process), its flags for this host, the workload argv and the environment.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/manifest/plan.hpp"

namespace culprit::launch {

// Facts about where culprit runs, read once (detect_launch_environment) and then passed
// explicitly, so building a command is a pure function that tests can drive.
struct LaunchEnvironment {
  std::string mpirun = "mpirun";
  std::string srun = "srun";
  bool use_srun = false;         // CULPRIT_LAUNCHER=srun (only inside a Slurm allocation)
  bool in_allocation = false;    // SLURM_JOB_ID is set
  unsigned slots = 1;            // cores of this host, or the allocation's tasks
  bool is_root = false;          // geteuid() == 0: Open MPI needs --allow-run-as-root
  std::string binding = "none";  // CULPRIT_BIND: none | core | socket | hwthread
  std::string workload_dir;      // where culprit-step / culprit-sim are looked for first
  // libculprit_pmpi.so, preloaded for instrument = "pmpi" (docs/pmpi.md): CULPRIT_PMPI_LIBRARY,
  // else ../lib/ or the folder of the running culprit; "" when not found.
  std::string pmpi_library;
};

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Reads the environment (CULPRIT_LAUNCHER, CULPRIT_BIND, SLURM_JOB_ID, SLURM_NTASKS,
// CULPRIT_PMPI_LIBRARY), the
// host's cores and the effective user. `lookup` defaults to the process environment.
// Throws culprit::UsageError for an unknown CULPRIT_LAUNCHER or CULPRIT_BIND value.
LaunchEnvironment detect_launch_environment(const EnvLookup& lookup = {});

// The directory of the running executable (/proc/self/exe), "" when unknown.
std::string executable_dir();

struct LaunchCommand {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // on top of the inherited environment
  std::string launcher;                    // "mpirun" | "srun" | "direct"
  std::string binding;                     // the binding policy applied ("" for direct)
};

// The command for one run of `config`: `config_path` is its resolved configuration JSON,
// `run_file` where the workload must write its run file. With instrument "pmpi" the ranks (not
// the launcher) get LD_PRELOAD=env.pmpi_library; throws culprit::UsageError when it is unknown.
LaunchCommand build_launch_command(const manifest::Configuration& config,
                                   const std::string& config_path, const std::string& run_file,
                                   const LaunchEnvironment& env);

}  // namespace culprit::launch
