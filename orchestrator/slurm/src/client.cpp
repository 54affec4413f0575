#include "culprit/slurm/client.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "culprit/errors.hpp"
#include "culprit/launch/process.hpp"

namespace culprit::slurm {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  return text.substr(begin);
}

// "12" or "12_3": the job id as squeue and sacct print it for an array task.
std::string task_id(const Record& r) {
  const auto array_job = r.find("ArrayJobId");
  const auto array_task = r.find("ArrayTaskId");
  if (array_job != r.end() && array_task != r.end() && array_task->second != "N/A" &&
      array_task->second.find_first_not_of("0123456789") == std::string::npos) {
    return array_job->second + "_" + array_task->second;
  }
  const auto id = r.find("JobId");
  return id == r.end() ? "" : id->second;
}

std::string config_value(const std::string& config, const std::string& key) {
  std::istringstream in(config);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    if (trim(line.substr(0, eq)) == key) return trim(line.substr(eq + 1));
  }
  return "";
}

// Whether `r` belongs to job `job_id` (an array's id matches all its tasks).
bool belongs(const Record& r, const std::string& job_id) {
  const auto id = r.find("JobId");
  const auto array_job = r.find("ArrayJobId");
  return (id != r.end() && id->second == job_id) ||
         (array_job != r.end() && array_job->second == job_id) || task_id(r) == job_id;
}

JobState from_record(const Record& r, const std::string& source) {
  JobState s;
  s.job_id = task_id(r);
  s.source = source;
  if (auto it = r.find("JobState"); it != r.end()) s.state = it->second;
  if (auto it = r.find("Reason"); it != r.end() && it->second != "None") s.reason = it->second;
  if (auto it = r.find("ExitCode"); it != r.end()) s.exit_code = it->second;
  return s;
}

std::vector<JobState> from_squeue(const std::string& job_id) {
  const ClientResult r =
      run_client({"squeue", "--noheader", "--array", "--jobs=" + job_id, "--format=%i|%T|%r"});
  if (!r.ok()) return {};  // an id squeue no longer knows is an error, not "no rows"
  return parse_squeue(r.out);
}

}  // namespace

std::vector<JobState> parse_squeue(const std::string& text) {
  std::vector<JobState> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto a = line.find('|');
    const auto b = line.find('|', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    JobState s;
    s.job_id = trim(line.substr(0, a));
    s.state = trim(line.substr(a + 1, b - a - 1));
    s.reason = trim(line.substr(b + 1));
    if (s.reason == "None") s.reason.clear();
    s.source = "squeue";
    // A pending array's tasks not yet split off print as "12_[2-3]": expand them.
    const auto open = s.job_id.find("_[");
    if (open != std::string::npos) {
      const std::string base = s.job_id.substr(0, open);
      std::string ranges = s.job_id.substr(open + 2);
      if (!ranges.empty() && ranges.back() == ']') ranges.pop_back();
      if (const auto pct = ranges.find('%'); pct != std::string::npos) ranges.resize(pct);
      std::istringstream parts(ranges);
      std::string part;
      while (std::getline(parts, part, ',')) {
        const auto dash = part.find('-');
        try {
          const int lo = std::stoi(part.substr(0, dash));
          const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
          for (int t = lo; t <= hi; ++t) {
            JobState task = s;
            task.job_id = base + "_" + std::to_string(t);
            out.push_back(task);
          }
        } catch (const std::exception&) {
        }
      }
      continue;
    }
    out.push_back(s);
  }
  return out;
}

namespace {

std::vector<JobState> from_sacct(const std::string& job_id) {
  const ClientResult r = run_client({"sacct", "--noheader", "--parsable2", "--allocations",
                                     "--jobs=" + job_id, "--format=JobID,State,ExitCode"});
  std::vector<JobState> out;
  if (!r.ok()) return out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '|')) f.push_back(field);
    if (f.size() < 3) continue;
    JobState s;
    s.job_id = f[0];
    s.state = f[1].substr(0, f[1].find(' '));  // "CANCELLED by 0"
    s.exit_code = f[2];
    s.source = "sacct";
    out.push_back(s);
  }
  return out;
}

std::vector<JobState> from_scontrol(const std::string& job_id) {
  const ClientResult r = run_client({"scontrol", "show", "job", job_id});
  std::vector<JobState> out;
  if (!r.ok()) return out;
  for (const Record& record : parse_scontrol_records(r.out)) {
    if (belongs(record, job_id)) out.push_back(from_record(record, "scontrol"));
  }
  return out;
}

std::vector<JobState> from_jobcomp(const std::string& job_id, const std::string& log_path) {
  std::ifstream file(log_path);
  std::ostringstream text;
  text << file.rdbuf();
  return parse_jobcomp(text.str(), job_id);
}

}  // namespace

std::vector<JobState> parse_jobcomp(const std::string& text, const std::string& job_id) {
  std::istringstream in(text);
  std::map<std::string, JobState> latest;  // a requeued job appears more than once
  std::string line;
  while (std::getline(in, line)) {
    const auto records = parse_scontrol_records(line);
    if (records.empty() || !belongs(records.front(), job_id)) continue;
    JobState s = from_record(records.front(), "jobcomp");
    latest[s.job_id] = s;
  }
  std::vector<JobState> out;
  for (auto& [id, s] : latest) out.push_back(s);
  return out;
}

namespace {

// Merges `more` into `into` for ids not there yet.
void add_missing(std::vector<JobState>& into, const std::vector<JobState>& more) {
  for (const auto& s : more) {
    const bool known = std::any_of(into.begin(), into.end(),
                                   [&](const JobState& k) { return k.job_id == s.job_id; });
    if (!known) into.push_back(s);
  }
}

}  // namespace

ClientResult run_client(const std::vector<std::string>& argv, double timeout_s) {
  launch::ProcessSpec spec;
  spec.argv = argv;
  spec.timeout_s = timeout_s;
  spec.tail_bytes = 1 << 20;
  const launch::ProcessResult p = launch::run_process(spec);
  ClientResult r;
  if (!p.started) {
    r.err = p.launch_error;
    return r;
  }
  r.exit_code = p.exit_code.value_or(-1);
  r.out = p.stdout_tail;
  r.err = p.stderr_tail;
  return r;
}

std::string run_client_or_throw(const std::vector<std::string>& argv, double timeout_s) {
  const ClientResult r = run_client(argv, timeout_s);
  if (!r.ok()) {
    throw RunError("`" + join(argv) + "` failed (exit " + std::to_string(r.exit_code) +
                   "): " + trim(r.err.empty() ? r.out : r.err) +
                   " (is the cluster up? SLURM_CONF names its slurm.conf)");
  }
  return r.out;
}

std::vector<Record> parse_scontrol_records(const std::string& text) {
  std::vector<Record> records;
  Record current;
  std::istringstream in(text);
  std::string line;
  auto flush = [&] {
    if (!current.empty()) records.push_back(std::move(current));
    current.clear();
  };
  while (std::getline(in, line)) {
    if (trim(line).empty()) {
      flush();
      continue;
    }
    std::istringstream words(line);
    std::string word;
    std::string last_key;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos || eq == 0) {
        if (!last_key.empty()) current[last_key] += " " + word;  // a value with spaces
        continue;
      }
      last_key = word.substr(0, eq);
      current[last_key] = word.substr(eq + 1);
    }
  }
  flush();
  return records;
}

bool is_final_state(const std::string& state) {
  static const char* const kFinal[] = {"COMPLETED",     "FAILED",    "CANCELLED",
                                       "TIMEOUT",       "NODE_FAIL", "PREEMPTED",
                                       "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"};
  return std::any_of(std::begin(kFinal), std::end(kFinal),
                     [&](const char* s) { return state == s; });
}

std::vector<JobState> job_states(const std::string& job_id) {
  std::vector<JobState> states = from_squeue(job_id);
  // squeue also lists jobs that just ended (COMPLETING); the finished ones come from below.
  std::vector<JobState> finished;
  const ClientResult config = run_client({"scontrol", "show", "config"});
  const std::string storage = config.ok() ? config_value(config.out, "AccountingStorageType") : "";
  if (!storage.empty() && storage != "accounting_storage/none") {
    finished = from_sacct(job_id);
  }
  std::vector<JobState> held = from_scontrol(job_id);
  std::erase_if(held, [](const JobState& s) { return !is_final_state(s.state); });
  add_missing(finished, held);
  if (config.ok() && config_value(config.out, "JobCompType") == "jobcomp/filetxt") {
    add_missing(finished, from_jobcomp(job_id, config_value(config.out, "JobCompLoc")));
  }
  // A final state wins over what squeue printed a moment earlier.
  for (auto& s : states) {
    for (const auto& f : finished) {
      if (f.job_id == s.job_id && is_final_state(f.state)) s = f;
    }
  }
  add_missing(states, finished);
  return states;
}

PartitionShape partition_shape(const std::string& partition) {
  PartitionShape shape;
  const std::string out = run_client_or_throw({"scontrol", "show", "partition"});
  for (const Record& p : parse_scontrol_records(out)) {
    const auto name = p.find("PartitionName");
    if (name == p.end()) continue;
    const bool is_default = p.count("Default") && p.at("Default") == "YES";
    if (partition.empty() ? !is_default : name->second != partition) continue;
    shape.name = name->second;
    if (auto it = p.find("TotalNodes"); it != p.end()) shape.nodes = std::stoi(it->second);
    const std::string nodes = p.count("Nodes") ? p.at("Nodes") : "";
    const std::string node_out = run_client_or_throw({"scontrol", "show", "node", nodes});
    for (const Record& n : parse_scontrol_records(node_out)) {
      if (auto it = n.find("CPUTot"); it != n.end()) {
        shape.max_cpus_per_node = std::max(shape.max_cpus_per_node, std::stoi(it->second));
      }
    }
    return shape;
  }
  throw UsageError(partition.empty()
                       ? "the cluster has no default partition: name one with --partition"
                       : "partition '" + partition +
                             "' does not exist (see `sinfo`): pass an existing --partition");
}

std::string sbatch(const std::vector<std::string>& args, const std::string& script) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(script);
  const ClientResult r = run_client(argv);
  if (!r.ok()) {
    throw RunError("sbatch refused " + script + ": " + trim(r.err) + " (command: " + join(argv) +
                   ")");
  }
  std::string id = trim(r.out);
  if (const auto semi = id.find(';'); semi != std::string::npos) id.resize(semi);  // ";cluster"
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw RunError("sbatch printed no job id for " + script + ": '" + trim(r.out) + "'");
  }
  return id;
}

}  // namespace culprit::slurm
