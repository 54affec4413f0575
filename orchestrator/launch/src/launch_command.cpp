#include "culprit/launch/launch_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "culprit/common/json.hpp"
#include "culprit/common/placeholders.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/preflight.hpp"
#include "culprit/launch/process.hpp"

namespace culprit::launch {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPmpiLibrary = "libculprit_pmpi.so";

// culprit-step / culprit-sim beside culprit, else the bare name (looked up in PATH).
std::string workload_executable(const std::string& name, const LaunchEnvironment& env) {
  if (!env.workload_dir.empty()) {
    const fs::path candidate = fs::path(env.workload_dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return name;
}

std::vector<std::string> workload_argv(const manifest::Configuration& config,
                                       const std::string& config_path, const std::string& run_file,
                                       const LaunchEnvironment& env) {
  if (config.command.empty()) {
    const char* name = config.backend == "sim" ? "culprit-sim" : "culprit-step";
    return {workload_executable(name, env), "--config", config_path, "--out", run_file};
  }
  std::vector<std::string> argv;
  for (const std::string& arg : config.command) {
    argv.push_back(substitute_placeholders(arg, {{"config", config_path}, {"out", run_file}},
                                           BraceEscapes::kResolve));
  }
  return argv;
}

std::string absolute_path(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

// The folder of the `culprit` Python module: CULPRIT_PYTHON_DIR, else an installed tree's
// (relative to the running culprit), else the source tree's it was built from.
std::string python_module_dir(const EnvLookup& lookup, const std::string& exe_dir) {
  if (auto dir = lookup("CULPRIT_PYTHON_DIR"); dir && !dir->empty()) return *dir;
#ifdef CULPRIT_INSTALLED_PYTHON_DIR
  if (!exe_dir.empty()) {
    std::error_code ec;
    const fs::path installed = fs::path(exe_dir) / CULPRIT_INSTALLED_PYTHON_DIR;
    if (fs::is_directory(installed / "culprit", ec))
      return fs::weakly_canonical(installed, ec).string();
  }
#endif
#ifdef CULPRIT_SOURCE_PYTHON_DIR
  std::error_code ec;
  if (fs::is_directory(fs::path(CULPRIT_SOURCE_PYTHON_DIR) / "culprit", ec))
    return CULPRIT_SOURCE_PYTHON_DIR;
#endif
  return "";
}

const char* srun_binding(const std::string& binding) {
  if (binding == "core") return "cores";
  if (binding == "socket") return "sockets";
  if (binding == "hwthread") return "threads";
  return "none";
}

// The cluster's MpiDefault from `scontrol show config`; "" when it cannot be read.
std::string cluster_mpi_default() {
  ProcessSpec spec;
  spec.argv = {"scontrol", "show", "config"};
  spec.timeout_s = 10;
  spec.tail_bytes = 1 << 16;
  const ProcessResult result = run_process(spec);
  if (!result.exit_code || *result.exit_code != 0) return "";
  const auto at = result.stdout_tail.find("MpiDefault");
  if (at == std::string::npos) return "";
  const auto eq = result.stdout_tail.find('=', at);
  const auto end = result.stdout_tail.find('\n', at);
  if (eq == std::string::npos || eq > end) return "";
  std::string value = result.stdout_tail.substr(eq + 1, end - eq - 1);
  value.erase(0, value.find_first_not_of(' '));
  value.erase(value.find_last_not_of(" \r") + 1);
  return value;
}

std::string find_pmpi_library(const EnvLookup& lookup, const std::string& workload_dir) {
  if (auto path = lookup("CULPRIT_PMPI_LIBRARY")) return *path;
  if (workload_dir.empty()) return "";
#ifdef CULPRIT_INSTALLED_LIB_DIR
  const fs::path installed = fs::path(workload_dir) / CULPRIT_INSTALLED_LIB_DIR / kPmpiLibrary;
#else
  const fs::path installed = fs::path(workload_dir) / ".." / "lib" / kPmpiLibrary;
#endif
  for (const fs::path& candidate : {installed, fs::path(workload_dir) / ".." / "lib" / kPmpiLibrary,
                                    fs::path(workload_dir) / kPmpiLibrary}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return "";
}

}  // namespace

std::string executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

LaunchEnvironment detect_launch_environment(const EnvLookup& lookup) {
  return detect_launch_environment(manifest::LaunchSettings{}, "", lookup);
}

namespace {

// Inside a Slurm allocation: its task count as the slots, and the job's identifiers.
void read_allocation(LaunchEnvironment& env, const EnvLookup& lookup) {
  env.in_allocation = lookup("SLURM_JOB_ID").has_value();
  env.slots = std::max(1u, std::thread::hardware_concurrency());
  if (!env.in_allocation) return;
  if (auto tasks = lookup("SLURM_NTASKS")) {
    try {
      env.slots = static_cast<unsigned>(std::max(1, std::stoi(*tasks)));
    } catch (const std::exception&) {  // malformed: keep the host's cores
    }
  }
  for (const auto& [key, name] :
       {std::pair{"job_id", "SLURM_JOB_ID"}, std::pair{"array_job_id", "SLURM_ARRAY_JOB_ID"},
        std::pair{"array_task_id", "SLURM_ARRAY_TASK_ID"}, std::pair{"nodes", "SLURM_JOB_NODELIST"},
        std::pair{"num_nodes", "SLURM_JOB_NUM_NODES"}}) {
    if (auto value = lookup(name)) env.slurm[key] = *value;
  }
}

// The launcher: --launcher, else [launch] launcher, else CULPRIT_LAUNCHER, else auto.
void choose_launcher(LaunchEnvironment& env, const manifest::LaunchSettings& settings,
                     const std::string& cli_launcher, const EnvLookup& lookup) {
  if (!cli_launcher.empty()) {
    env.launcher_choice = cli_launcher;
    env.launcher_source = "--launcher";
  } else if (!settings.launcher.empty()) {
    env.launcher_choice = settings.launcher;
    env.launcher_source = "[launch] launcher";
  } else if (auto launcher = lookup("CULPRIT_LAUNCHER"); launcher && !launcher->empty()) {
    env.launcher_choice = *launcher;
    env.launcher_source = "CULPRIT_LAUNCHER";
  }
  const std::string& choice = env.launcher_choice;
  if (choice != "auto" && choice != "mpirun" && choice != "srun" && choice != "torchrun") {
    throw UsageError(env.launcher_source + " = " + choice +
                     " is not a launcher culprit knows: use auto (srun inside a Slurm "
                     "allocation, mpirun outside), mpirun, srun or torchrun");
  }
  env.use_torchrun = choice == "torchrun";
  env.use_srun = choice == "srun" || (choice == "auto" && env.in_allocation);
  if (choice == "srun" && !env.in_allocation) {
    throw UsageError(env.launcher_source +
                     " = srun needs a Slurm allocation (SLURM_JOB_ID is not set): run inside "
                     "salloc/sbatch (or `culprit submit`), or use auto/mpirun");
  }
}

// The binding policy: [launch] binding, else CULPRIT_BIND, else none.
void choose_binding(LaunchEnvironment& env, const manifest::LaunchSettings& settings,
                    const EnvLookup& lookup) {
  std::string bind_source = "[launch] binding";
  if (!settings.binding.empty()) {
    env.binding = settings.binding;
  } else if (auto bind = lookup("CULPRIT_BIND")) {
    env.binding = *bind;
    bind_source = "CULPRIT_BIND";
  }
  if (env.binding != "none" && env.binding != "core" && env.binding != "socket" &&
      env.binding != "hwthread") {
    throw UsageError(bind_source + " = " + env.binding +
                     " is not a binding policy: use none, core, socket or hwthread");
  }
}

// srun's --mpi type: the manifest's extra --mpi=, else SLURM_MPI_TYPE, else the cluster's
// default (asked only of the real environment), else MpiDefault.
void choose_srun_mpi(LaunchEnvironment& env, const EnvLookup& lookup, bool real_environment) {
  for (const auto& arg : env.extra_args) {
    if (arg.rfind("--mpi=", 0) == 0) env.srun_mpi_type = arg.substr(6);
  }
  if (env.srun_mpi_type.empty()) {
    if (auto type = lookup("SLURM_MPI_TYPE")) env.srun_mpi_type = *type;
  }
  if (env.srun_mpi_type.empty() && real_environment) env.srun_mpi_type = cluster_mpi_default();
  if (env.srun_mpi_type.empty()) env.srun_mpi_type = "MpiDefault";
}

}  // namespace

LaunchEnvironment detect_launch_environment(const manifest::LaunchSettings& settings,
                                            const std::string& cli_launcher,
                                            const EnvLookup& lookup_in) {
  const bool real_environment = !lookup_in;
  const EnvLookup lookup = lookup_in ? lookup_in : [](const std::string& key) {
    const char* value = std::getenv(key.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  LaunchEnvironment env;
  read_allocation(env, lookup);
  choose_launcher(env, settings, cli_launcher, lookup);
  choose_binding(env, settings, lookup);
  env.ranks_per_node = settings.ranks_per_node;
  env.extra_args = settings.extra_args;
  if (env.use_srun) choose_srun_mpi(env, lookup, real_environment);
  env.is_root = geteuid() == 0;
  env.workload_dir = executable_dir();
  env.python_module_dir = python_module_dir(lookup, env.workload_dir);
  env.python_path = env.python_module_dir;
  if (auto inherited = lookup("PYTHONPATH"); inherited && !inherited->empty()) {
    env.python_path = env.python_path.empty() ? *inherited : env.python_path + ":" + *inherited;
  }
  env.pmpi_library = find_pmpi_library(lookup, env.workload_dir);
  return env;
}

std::vector<std::pair<std::string, std::string>> launch_provenance(const LaunchCommand& command,
                                                                   const LaunchEnvironment& env) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string argv = "[";
  for (std::size_t i = 0; i < command.argv.size(); ++i) {
    if (i > 0) argv += ",";
    argv += Json(command.argv[i]).dump();
  }
  argv += "]";
  out.emplace_back("launch.launcher", command.launcher);
  out.emplace_back("launch.launcher_choice",
                   env.launcher_choice + " (" + env.launcher_source + ")");
  out.emplace_back("launch.command_line", argv);
  out.emplace_back("launch.mpi_type", command.mpi_type);
  for (const auto& [key, value] : env.slurm) out.emplace_back("slurm." + key, value);
  return out;
}

// torchrun for a Python command, on this host: `INTERPRETER -m torch.distributed.run` (the
// interpreter that has torch, so no separate torchrun need be on PATH), one process per rank,
// a standalone rendezvous on localhost (a free port), its logs beside the run file.
// `--redirects 1 --tee 2` (stdout to the log folder, stderr teed to the console) avoid the
// defaults that Debian's torch 1.13 cannot parse under Python 3.11.
static std::vector<std::string> torchrun_argv(const manifest::Configuration& config,
                                              const std::vector<std::string>& workload,
                                              const std::string& run_file) {
  if (workload.empty() || !is_python_interpreter(workload[0])) {
    throw UsageError("configuration '" + config.label +
                     "': launcher torchrun runs Python commands (command = [\"{python}\", "
                     "\"train.py\", ...]); use mpirun or srun for '" +
                     (workload.empty() ? std::string("culprit-step") : workload[0]) + "'");
  }
  return {workload[0],
          "-m",
          "torch.distributed.run",
          "--nproc_per_node=" + std::to_string(config.ranks),
          "--standalone",
          "--redirects",
          "1",
          "--tee",
          "2",
          "--log_dir",
          (fs::path(run_file).parent_path() / "torchrun").string()};
}

namespace {

// "LD_PRELOAD=<interposer>[:the version's own]" for a PMPI-instrumented configuration, else "".
std::string pmpi_preload(const manifest::Configuration& config, const LaunchEnvironment& env) {
  if (config.instrument != "pmpi") return "";
  if (env.pmpi_library.empty()) {
    throw UsageError("configuration '" + config.label +
                     "' has instrument = \"pmpi\" but libculprit_pmpi.so was not found: build "
                     "it (cmake --build build --target culprit_pmpi) or set "
                     "CULPRIT_PMPI_LIBRARY to its path");
  }
  // Only the ranks get the interposer, never the launcher itself; a version's own
  // LD_PRELOAD is kept after it.
  std::string preload = "LD_PRELOAD=" + env.pmpi_library;
  if (auto own = config.env.find("LD_PRELOAD"); own != config.env.end() && !own->second.empty()) {
    preload += ":" + own->second;
  }
  return preload;
}

void add_srun(LaunchCommand& command, const manifest::Configuration& config,
              const LaunchEnvironment& env, const std::string& preload) {
  command.launcher = "srun";
  command.mpi_type = env.srun_mpi_type;
  command.argv = {env.srun, "--ntasks=" + std::to_string(config.ranks)};
  if (env.ranks_per_node > 0) {
    command.argv.push_back("--ntasks-per-node=" + std::to_string(env.ranks_per_node));
  }
  // More ranks than the allocation's tasks: srun refuses unless told to overcommit.
  if (static_cast<unsigned>(config.ranks) > env.slots) command.argv.push_back("--overcommit");
  command.argv.insert(command.argv.end(), {"--kill-on-bad-exit=1",
                                           std::string("--cpu-bind=") + srun_binding(env.binding)});
  if (!preload.empty()) command.argv.push_back("--export=ALL," + preload);
}

void add_mpirun(LaunchCommand& command, const manifest::Configuration& config,
                const LaunchEnvironment& env, const std::string& preload) {
  const bool oversubscribed = static_cast<unsigned>(config.ranks) > env.slots;
  command.launcher = "mpirun";
  command.mpi_type = "mpirun";
  command.argv = {env.mpirun, "-np", std::to_string(config.ranks)};
  if (oversubscribed) command.argv.push_back("--oversubscribe");
  if (env.is_root) command.argv.push_back("--allow-run-as-root");
  if (env.ranks_per_node > 0) {
    command.argv.insert(command.argv.end(),
                        {"--map-by", "ppr:" + std::to_string(env.ranks_per_node) + ":node"});
  }
  // Binding to cores with more ranks than cores needs overload-allowed, or mpirun refuses.
  const bool overload = oversubscribed && env.binding != "none";
  command.argv.insert(command.argv.end(),
                      {"--bind-to", env.binding + (overload ? ":overload-allowed" : "")});
  // Exported explicitly so ranks on other hosts of an allocation see them too.
  for (const auto& [key, value] : command.env) {
    if (key == "LD_PRELOAD" && !preload.empty()) continue;  // passed with the interposer
    command.argv.insert(command.argv.end(), {"-x", key});
  }
  if (!preload.empty()) command.argv.insert(command.argv.end(), {"-x", preload});
}

}  // namespace

LaunchCommand build_launch_command(const manifest::Configuration& config,
                                   const std::string& config_path_in,
                                   const std::string& run_file_in, const LaunchEnvironment& env) {
  const std::string config_path = absolute_path(config_path_in);
  const std::string run_file = absolute_path(run_file_in);
  LaunchCommand command;
  command.env = config.env;
  command.env["CULPRIT_CONFIG"] = config_path;
  command.env["CULPRIT_RUN_FILE"] = run_file;
  if (!env.python_path.empty()) {
    const auto own = config.env.find("PYTHONPATH");
    command.env["PYTHONPATH"] = own == config.env.end() || own->second.empty()
                                    ? env.python_path
                                    : env.python_path + ":" + own->second;
  }
  const std::vector<std::string> workload = workload_argv(config, config_path, run_file, env);
  if (config.backend == "sim") {
    command.launcher = "direct";
    command.argv = workload;
    return command;
  }
  if (env.use_torchrun) {
    command.launcher = "torchrun";
    command.mpi_type = "torchrun";
    command.argv = torchrun_argv(config, workload, run_file);
    command.argv.insert(command.argv.end(), env.extra_args.begin(), env.extra_args.end());
    command.argv.insert(command.argv.end(), workload.begin() + 1, workload.end());
    return command;
  }
  command.binding = env.binding;
  const std::string preload = pmpi_preload(config, env);
  if (env.use_srun) {
    add_srun(command, config, env, preload);
  } else {
    add_mpirun(command, config, env, preload);
  }
  command.argv.insert(command.argv.end(), env.extra_args.begin(), env.extra_args.end());
  command.argv.insert(command.argv.end(), workload.begin(), workload.end());
  return command;
}

}  // namespace culprit::launch
