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
  // The launcher asked for (--launcher, else [launch] launcher, else CULPRIT_LAUNCHER, else
  // "auto") and where that came from, for messages; `use_srun` is the resolved choice: auto
  // means srun inside an allocation, mpirun outside.
  std::string launcher_choice = "auto";
  std::string launcher_source = "default";
  bool use_srun = false;
  bool use_torchrun =
      false;  // "torchrun": the Python command's interpreter runs torch.distributed.run
  bool in_allocation = false;           // SLURM_JOB_ID is set
  unsigned slots = 1;                   // cores of this host, or the allocation's tasks
  bool is_root = false;                 // geteuid() == 0: Open MPI needs --allow-run-as-root
  std::string binding = "none";         // CULPRIT_BIND: none | core | socket | hwthread
  std::string workload_dir;             // where culprit-step / culprit-sim are looked for first
  int ranks_per_node = 0;               // [launch] ranks_per_node; 0: the launcher's default
  std::vector<std::string> extra_args;  // [launch] extra_args, before the workload
  // The allocation this runs in (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID,
  // SLURM_JOB_NODELIST, SLURM_JOB_NUM_NODES); empty outside one.
  std::map<std::string, std::string> slurm;
  // srun's MPI plugin: --mpi= in extra_args, else SLURM_MPI_TYPE, else the cluster's
  // MpiDefault (read with `scontrol show config` when detecting from the real environment).
  std::string srun_mpi_type;
  // PYTHONPATH for launched commands: python_module_dir, then the inherited PYTHONPATH.
  // Empty: PYTHONPATH is left alone.
  std::string python_path;
  // The folder holding the `culprit` Python module alone (CULPRIT_PYTHON_DIR, else the
  // installed tree's share/culprit/python beside the running culprit, else the source tree's).
  std::string python_module_dir;
  // libculprit_pmpi.so, preloaded for instrument = "pmpi" (docs/pmpi.md): CULPRIT_PMPI_LIBRARY,
  // else ../lib/ or the folder of the running culprit; "" when not found.
  std::string pmpi_library;
  // The interpreter preflight suggests when a Python command's cannot import torch, if this one
  // can (preflight.hpp); "" suggests none.
  std::string suggested_python = "/usr/bin/python3";
};

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Reads the environment (CULPRIT_LAUNCHER, CULPRIT_BIND, SLURM_*, CULPRIT_PMPI_LIBRARY), the host's
// cores and the effective user, and applies the manifest's [launch] settings and the command line's
// --launcher (`cli_launcher`, "" when not given) over the environment variables.
// `lookup` defaults to the process environment. Throws culprit::UsageError for an unknown
// launcher or binding, or srun asked for outside an allocation.
LaunchEnvironment detect_launch_environment(const manifest::LaunchSettings& settings,
                                            const std::string& cli_launcher = "",
                                            const EnvLookup& lookup = {});
// The same without [launch] settings or --launcher.
LaunchEnvironment detect_launch_environment(const EnvLookup& lookup = {});

// The directory of the running executable (/proc/self/exe), "" when unknown.
std::string executable_dir();

struct LaunchCommand {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // on top of the inherited environment
  std::string launcher;                    // "mpirun" | "srun" | "torchrun" | "direct"
  std::string binding;                     // the binding policy applied ("" for direct)
  std::string mpi_type;  // "pmix", ... for srun; "mpirun" (the MPI's own runtime); "" direct
};

// The command for one run of `config`: `config_path` is its resolved configuration JSON,
// `run_file` where the workload must write its run file. Both are made absolute (in argv
// placeholders and in CULPRIT_CONFIG / CULPRIT_RUN_FILE), so a wrapper that changes directory
// still finds them.
// With instrument "pmpi" the ranks (not the launcher) get LD_PRELOAD=env.pmpi_library; throws
// culprit::UsageError when it is unknown.
LaunchCommand build_launch_command(const manifest::Configuration& config,
                                   const std::string& config_path, const std::string& run_file,
                                   const LaunchEnvironment& env);

// What the store records about how a run was launched (provenance, rank -1): launch.launcher,
// launch.command_line (the argv as JSON), launch.mpi_type, and slurm.job_id,
// slurm.array_job_id, slurm.array_task_id, slurm.nodes, slurm.num_nodes inside an allocation.
std::vector<std::pair<std::string, std::string>> launch_provenance(const LaunchCommand& command,
                                                                   const LaunchEnvironment& env);

}  // namespace culprit::launch
