#include "culprit/launch/preflight.hpp"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "culprit/analysis/timeline.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/process.hpp"
#include "stepmodel/schedule.hpp"

namespace culprit::launch {
namespace {

namespace fs = std::filesystem;

// What a Python interpreter said when asked to import torch and culprit.
struct PythonProbe {
  bool ok = false;
  std::string missing;  // "torch" or "culprit" when an import failed, "" when it did not start
  std::string detail;   // the exception ("ModuleNotFoundError: No module named 'torch'")
  std::string facts;    // "torch 2.1.2, culprit from /x/python/culprit/__init__.py"
};

// Prints one line: "ok <torch version> <culprit file>" or "missing <module> <exception>".
constexpr const char* kProbe =
    "import sys\n"
    "def fail(name, e):\n"
    "    print('missing', name, type(e).__name__ + ': ' + str(e)); sys.exit(3)\n"
    "try:\n"
    "    import torch, torch.distributed\n"
    "except Exception as e:\n"
    "    fail('torch', e)\n"
    "try:\n"
    "    import culprit\n"
    "except Exception as e:\n"
    "    fail('culprit', e)\n"
    "print('ok', torch.__version__, culprit.__file__)\n";

std::string last_line(const std::string& text) {
  std::string trimmed = text.substr(0, text.find_last_not_of("\r\n") + 1);
  const auto nl = trimmed.rfind('\n');
  return nl == std::string::npos ? trimmed : trimmed.substr(nl + 1);
}

PythonProbe probe_python(const std::string& interpreter,
                         const std::map<std::string, std::string>& env) {
  ProcessSpec spec;
  spec.argv = {interpreter, "-c", kProbe};
  spec.env = env;
  spec.timeout_s = 120;  // importing torch takes seconds on a loaded machine
  spec.grace_s = 1;
  const ProcessResult result = run_process(spec);
  PythonProbe probe;
  const std::string line = last_line(result.stdout_tail);
  if (result.exit_code == 0 && line.rfind("ok ", 0) == 0) {
    const auto space = line.find(' ', 3);
    probe.ok = true;
    probe.facts = "torch " + line.substr(3, space - 3) + ", culprit from " +
                  (space == std::string::npos ? std::string("?") : line.substr(space + 1));
    return probe;
  }
  if (line.rfind("missing ", 0) == 0) {
    const auto space = line.find(' ', 8);
    probe.missing = line.substr(8, space - 8);
    probe.detail = space == std::string::npos ? std::string() : line.substr(space + 1);
    return probe;
  }
  probe.detail = result.timed_out  ? std::string("it did not answer within 120 s")
                 : !result.started ? result.launch_error
                                   : last_line(result.stderr_tail);
  if (probe.detail.empty()) probe.detail = "it exited without saying why";
  return probe;
}

// The interpreter to suggest (Debian's /usr/bin/python3) when it is another one and imports both.
std::string suggestion(const std::string& candidate, const std::string& resolved,
                       const std::map<std::string, std::string>& env) {
  std::error_code ec;
  if (candidate.empty() || fs::equivalent(resolved, candidate, ec) ||
      access(candidate.c_str(), X_OK) != 0)
    return "";
  return probe_python(candidate, env).ok ? candidate : "";
}

[[noreturn]] void python_failure(const manifest::Plan& plan, const manifest::Configuration& config,
                                 const std::string& interpreter, const std::string& resolved,
                                 const PythonProbe& probe, const LaunchCommand& command,
                                 const std::string& candidate) {
  const std::string what = probe.missing.empty()
                               ? "cannot be run (" + probe.detail + ")"
                               : "cannot import " + probe.missing + " (" + probe.detail + ")";
  const std::string found = suggestion(candidate, resolved, command.env);
  const std::string value = found.empty() ? "/path/to/python3-with-torch" : found;
  std::string fix = "set [experiment] python = \"" + value + "\" in " +
                    plan.settings.manifest_path +
                    (config.python_placeholder
                         ? std::string()
                         : " and write \"{python}\" as the command's first word instead of \"" +
                               interpreter + "\"");
  if (!found.empty()) fix += " (" + found + " imports torch and culprit here)";
  if (found.empty() && probe.missing == "torch")
    fix += " (Debian: apt-get install python3-torch, for /usr/bin/python3)";
  if (probe.missing == "culprit")
    fix =
        "install the culprit Python package for it (pip install ./python) or set "
        "CULPRIT_PYTHON_DIR to the folder holding culprit/, or " +
        fix;
  throw UsageError("configuration '" + config.label + "' runs the Python interpreter '" +
                   interpreter + "' (" + resolved + "), which " + what +
                   " with the run's environment: nothing was run; " + fix + ", then run again");
}

[[noreturn]] void missing_executable(const manifest::Configuration& config, const std::string& name,
                                     bool launcher, const LaunchEnvironment& env) {
  throw UsageError(
      std::string(launcher ? "launcher" : "workload") + " '" + name + "' of configuration '" +
      config.label + "' " +
      (name.find('/') != std::string::npos
           ? "is not an executable file"
           : "is not found in PATH" + (launcher || env.workload_dir.empty()
                                           ? std::string()
                                           : " nor beside culprit (" + env.workload_dir + ")")) +
      ": nothing was run; " +
      (launcher ? "install it or put it on PATH" : "build or install it, or fix the command") +
      ", then run again");
}

// A simulated configuration's events per run, known before it runs, against what one run can
// hold: analysis indexes a run's events with 32-bit integers (analysis::kMaxRunEvents).
void check_simulated_size(const manifest::Configuration& config) {
  if (config.backend != "sim" || !config.command.empty()) return;
  const auto per_rank_step =
      static_cast<double>(stepmodel::step_schedule(config.run.model).size() + 1);
  const double events = per_rank_step * config.ranks * (config.run.warmup_steps + config.run.steps);
  if (events <= static_cast<double>(analysis::kMaxRunEvents)) return;
  throw UsageError("configuration '" + config.label + "' simulates " +
                   std::to_string(static_cast<long long>(events)) + " events a run (" +
                   std::to_string(config.ranks) + " ranks x " +
                   std::to_string(config.run.warmup_steps + config.run.steps) + " steps x " +
                   std::to_string(static_cast<long long>(per_rank_step)) +
                   " events a rank and step), more than the " +
                   std::to_string(analysis::kMaxRunEvents) +
                   " one run can hold (analysis indexes a run's events with 32-bit integers): "
                   "nothing was run; lower ranks, steps, layers or microbatches");
}

// The launcher's and the workload's positions in a configuration's full argv.
std::vector<std::size_t> executable_positions(const manifest::Configuration& config,
                                              const LaunchCommand& command) {
  if (command.launcher == "torchrun") return {0};  // the interpreter runs the launcher
  const std::size_t workload_args = config.command.empty() ? 5 : config.command.size();
  if (command.argv.empty() || workload_args > command.argv.size()) return {};
  std::vector<std::size_t> positions = {command.argv.size() - workload_args};
  if (positions[0] != 0) positions.insert(positions.begin(), 0);
  return positions;
}

// srun inside an allocation needs the allocation alive and its controller reachable: a stale
// SLURM_JOB_ID (a shell left from an allocation that ended) would make every run fail within
// milliseconds. Asked of squeue, as srun would ask the controller (issue 38 item 10).
void check_allocation(const LaunchEnvironment& env) {
  const auto id = env.slurm.find("job_id");
  if (id == env.slurm.end()) return;
  ProcessSpec spec;
  spec.argv = {"squeue", "--noheader", "--jobs=" + id->second, "--format=%T"};
  spec.timeout_s = 20;
  spec.tail_bytes = 1 << 12;
  const ProcessResult result = run_process(spec);
  std::string state = result.stdout_tail;
  state.erase(state.find_last_not_of(" \r\n") + 1);
  if (result.exit_code && *result.exit_code == 0 && (state == "RUNNING" || state == "COMPLETING"))
    return;
  const std::string said = last_line(result.stderr_tail.empty() ? state : result.stderr_tail);
  throw UsageError(
      "the launcher is srun (" + env.launcher_source + ": " + env.launcher_choice +
      ", inside a Slurm allocation as SLURM_JOB_ID=" + id->second +
      " says), but that allocation is not running here (squeue --jobs=" + id->second + ": " +
      (said.empty() ? std::string("no such job") : said) +
      "): nothing was run; if the allocation ended, unset SLURM_JOB_ID (and the other SLURM_* "
      "variables) or pass --launcher mpirun, else run inside a live allocation (salloc, sbatch)");
}

}  // namespace

bool is_python_interpreter(const std::string& executable) {
  static const std::regex python("python[0-9.]*");
  return std::regex_match(fs::path(executable).filename().string(), python);
}

std::vector<std::string> preflight(const manifest::Plan& plan, const std::vector<int>& configs,
                                   const LaunchEnvironment& env) {
  std::vector<std::string> lines;
  if (env.use_srun) check_allocation(env);
  std::set<std::string> seen;  // executables (and interpreters with their environment) checked
  for (const int index : configs) {
    const auto& config = plan.configs.at(static_cast<std::size_t>(index));
    check_simulated_size(config);
    const LaunchCommand command = build_launch_command(config, "config.json", "run.db", env);
    const std::vector<std::size_t> positions = executable_positions(config, command);
    for (std::size_t at : positions) {
      const std::string& name = command.argv[at];
      const bool launcher = at == 0 && positions.size() > 1;
      const auto found = find_in_path(name);
      if (!found || access(found->c_str(), X_OK) != 0)
        missing_executable(config, name, launcher, env);
      const std::string resolved = fs::absolute(*found).lexically_normal().string();
      const bool python = !launcher && is_python_interpreter(name);
      std::string key = name;
      if (python)
        for (const auto& [k, v] : command.env) key += "\n" + k + "=" + v;
      if (!seen.insert(key).second) continue;
      if (!python) {
        lines.push_back(name + " -> " + resolved);
        continue;
      }
      const PythonProbe probe = probe_python(name, command.env);
      if (!probe.ok)
        python_failure(plan, config, name, resolved, probe, command, env.suggested_python);
      lines.push_back(name + " -> " + resolved + " (" + probe.facts + ")");
    }
  }
  return lines;
}

}  // namespace culprit::launch
