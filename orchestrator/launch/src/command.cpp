#include "culprit/launch/command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "culprit/errors.hpp"

namespace culprit::launch {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPmpiLibrary = "libculprit_pmpi.so";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

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
    argv.push_back(replace_all(replace_all(arg, "{config}", config_path), "{out}", run_file));
  }
  return argv;
}

const char* srun_binding(const std::string& binding) {
  if (binding == "core") return "cores";
  if (binding == "socket") return "sockets";
  if (binding == "hwthread") return "threads";
  return "none";
}

std::string find_pmpi_library(const EnvLookup& lookup, const std::string& workload_dir) {
  if (auto path = lookup("CULPRIT_PMPI_LIBRARY")) return *path;
  if (workload_dir.empty()) return "";
  for (const fs::path& candidate : {fs::path(workload_dir) / ".." / "lib" / kPmpiLibrary,
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

LaunchEnvironment detect_launch_environment(const EnvLookup& lookup_in) {
  const EnvLookup lookup = lookup_in ? lookup_in : [](const std::string& key) {
    const char* value = std::getenv(key.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  LaunchEnvironment env;
  env.in_allocation = lookup("SLURM_JOB_ID").has_value();
  env.slots = std::max(1u, std::thread::hardware_concurrency());
  if (env.in_allocation) {
    if (auto tasks = lookup("SLURM_NTASKS")) {
      try {
        env.slots = static_cast<unsigned>(std::max(1, std::stoi(*tasks)));
      } catch (const std::exception&) {  // malformed: keep the host's cores
      }
    }
  }
  if (auto launcher = lookup("CULPRIT_LAUNCHER")) {
    if (*launcher == "srun") {
      env.use_srun = true;
    } else if (*launcher != "mpirun" && !launcher->empty()) {
      throw UsageError("CULPRIT_LAUNCHER=" + *launcher +
                       " is not a launcher culprit knows: use mpirun (default) or srun");
    }
  }
  if (env.use_srun && !env.in_allocation) {
    throw UsageError(
        "CULPRIT_LAUNCHER=srun needs a Slurm allocation (SLURM_JOB_ID is not set): run inside "
        "salloc/sbatch, or unset CULPRIT_LAUNCHER to use mpirun");
  }
  if (auto bind = lookup("CULPRIT_BIND")) {
    if (*bind != "none" && *bind != "core" && *bind != "socket" && *bind != "hwthread") {
      throw UsageError("CULPRIT_BIND=" + *bind + " is not a binding policy: use none, core, " +
                       "socket or hwthread");
    }
    env.binding = *bind;
  }
  env.is_root = geteuid() == 0;
  env.workload_dir = executable_dir();
  env.pmpi_library = find_pmpi_library(lookup, env.workload_dir);
  return env;
}

LaunchCommand build_launch_command(const manifest::Configuration& config,
                                   const std::string& config_path, const std::string& run_file,
                                   const LaunchEnvironment& env) {
  LaunchCommand command;
  command.env = config.env;
  command.env["CULPRIT_CONFIG"] = config_path;
  command.env["CULPRIT_RUN_FILE"] = run_file;
  const std::vector<std::string> workload = workload_argv(config, config_path, run_file, env);
  if (config.backend == "sim") {
    command.launcher = "direct";
    command.argv = workload;
    return command;
  }
  const std::string ranks = std::to_string(config.ranks);
  command.binding = env.binding;
  std::string preload;
  if (config.instrument == "pmpi") {
    if (env.pmpi_library.empty()) {
      throw UsageError("configuration '" + config.label +
                       "' has instrument = \"pmpi\" but libculprit_pmpi.so was not found: build "
                       "it (cmake --build build --target culprit_pmpi) or set "
                       "CULPRIT_PMPI_LIBRARY to its path");
    }
    // Only the ranks get the interposer, never the launcher itself; a version's own
    // LD_PRELOAD is kept after it.
    preload = "LD_PRELOAD=" + env.pmpi_library;
    if (auto own = config.env.find("LD_PRELOAD"); own != config.env.end() && !own->second.empty()) {
      preload += ":" + own->second;
    }
  }
  if (env.use_srun) {
    command.launcher = "srun";
    command.argv = {env.srun, "--ntasks=" + ranks, "--kill-on-bad-exit=1",
                    std::string("--cpu-bind=") + srun_binding(env.binding)};
    if (!preload.empty()) command.argv.push_back("--export=ALL," + preload);
  } else {
    command.launcher = "mpirun";
    command.argv = {env.mpirun, "-np", ranks};
    if (static_cast<unsigned>(config.ranks) > env.slots) command.argv.push_back("--oversubscribe");
    if (env.is_root) command.argv.push_back("--allow-run-as-root");
    command.argv.insert(command.argv.end(), {"--bind-to", env.binding});
    // Exported explicitly so ranks on other hosts of an allocation see them too.
    for (const auto& [key, value] : command.env) {
      if (key == "LD_PRELOAD" && !preload.empty()) continue;  // passed with the interposer
      command.argv.insert(command.argv.end(), {"-x", key});
    }
    if (!preload.empty()) command.argv.insert(command.argv.end(), {"-x", preload});
  }
  command.argv.insert(command.argv.end(), workload.begin(), workload.end());
  return command;
}

}  // namespace culprit::launch
