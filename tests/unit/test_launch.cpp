#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/launch/import_run.hpp"
#include "culprit/launch/interrupt.hpp"
#include "culprit/launch/launch_command.hpp"
#include "culprit/launch/preflight.hpp"
#include "culprit/launch/process.hpp"
#include "culprit/storage/merge.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/store.hpp"
#include "stepmodel/schedule.hpp"
#include "temp_store.hpp"

namespace fs = std::filesystem;
using namespace culprit;
using namespace culprit::launch;

namespace {

// culprit-fake-workload is built into the same folder as this test.
std::string fake_workload() {
  return (fs::path(executable_dir()) / "culprit-fake-workload").string();
}

// Named apart from the storage tests' stores (the binaries may run at the same time).
struct TempStore : culprit::testing::TempStore {
  explicit TempStore(const std::string& name) : culprit::testing::TempStore("launch_" + name) {}
};

manifest::Configuration fake_config(const std::string& label, std::vector<std::string> extra,
                                    const std::string& backend = "sim", int ranks = 2) {
  manifest::Configuration c;
  c.label = label;
  c.factor = label == "baseline" ? "" : "version";
  c.level_json = label == "baseline" ? "null" : "\"" + label + "\"";
  c.is_baseline = label == "baseline";
  c.backend = backend;
  c.ranks = ranks;
  c.command = {fake_workload(),      "--out", "{out}", "--config", "{config}", "--ranks",
               std::to_string(ranks)};
  c.command.insert(c.command.end(), extra.begin(), extra.end());
  c.resolved_json = "{\"config_label\":\"" + label + "\"}";
  c.config_hash = "hash-" + label;
  return c;
}

// configs[i] runs `repetitions` times, interleaved: position = rep * configs + i.
manifest::Plan fake_plan(std::vector<manifest::Configuration> configs, int repetitions) {
  manifest::Plan plan;
  plan.settings.name = "unit";
  plan.settings.manifest_path = "unit.toml";
  plan.settings.manifest_text = "[experiment]\nname = \"unit\"\n";
  plan.settings.manifest_hash = "manifest-hash-1";
  plan.settings.timeout_s = 20;
  plan.configs = std::move(configs);
  for (int rep = 0; rep < repetitions; ++rep) {
    for (int c = 0; c < static_cast<int>(plan.configs.size()); ++c) {
      manifest::PlannedRun run;
      run.config_index = c;
      run.repetition = rep;
      run.position = static_cast<int>(plan.runs.size());
      run.seed = 1000 + static_cast<std::uint64_t>(run.position);
      plan.runs.push_back(run);
    }
  }
  return plan;
}

ExecuteOptions quick_options() {
  ExecuteOptions options;
  options.grace_s = 0.5;
  options.launch.workload_dir = executable_dir();
  options.launch.mpirun = "mpirun";
  options.launch.is_root = true;
  options.launch.slots = 1;
  return options;
}

std::map<std::string, int> status_counts(storage::Db& db) {
  std::map<std::string, int> counts;
  for (const auto& run : storage::list_runs(db)) ++counts[run.status];
  return counts;
}

class RecordingSink : public ProgressSink {
 public:
  int starts = 0, ends = 0, to_run = -1;
  void on_sweep_start(int, int n, int) override { to_run = n; }
  void on_run_start(const RunProgress&) override { ++starts; }
  void on_run_end(const RunProgress&, const RunReport&) override { ++ends; }
};

// A one-rank cpu configuration running `command`, launched by a plain "mpirun": what the
// placeholder tests fill in.
manifest::Configuration one_rank_command(std::vector<std::string> command) {
  manifest::Configuration c;
  c.backend = "cpu";
  c.ranks = 1;
  c.command = std::move(command);
  return c;
}

LaunchEnvironment plain_mpirun() {
  LaunchEnvironment env;
  env.mpirun = "mpirun";
  return env;
}

}  // namespace

TEST_CASE("mpirun argv: ranks, oversubscription only beyond the slots, root, binding, env") {
  LaunchEnvironment env;
  env.mpirun = "/usr/bin/mpirun";
  env.slots = 2;
  env.is_root = false;
  env.binding = "core";
  env.workload_dir = "/opt/culprit/bin";
  manifest::Configuration c;
  c.backend = "cpu";
  c.ranks = 2;
  c.env = {{"OMP_NUM_THREADS", "1"}};
  auto cmd = build_launch_command(c, "/w/config.json", "/w/run.db", env);
  CHECK(cmd.launcher == "mpirun");
  CHECK(cmd.binding == "core");
  using V = std::vector<std::string>;
  // The workload is culprit-step from workload_dir when present there, else from PATH.
  CHECK(cmd.argv == V{"/usr/bin/mpirun", "-np", "2", "--bind-to", "core", "-x", "CULPRIT_CONFIG",
                      "-x", "CULPRIT_RUN_FILE", "-x", "OMP_NUM_THREADS", "culprit-step", "--config",
                      "/w/config.json", "--out", "/w/run.db"});
  CHECK(cmd.env.at("CULPRIT_CONFIG") == "/w/config.json");
  CHECK(cmd.env.at("CULPRIT_RUN_FILE") == "/w/run.db");
  CHECK(cmd.env.at("OMP_NUM_THREADS") == "1");

  c.ranks = 3;
  env.is_root = true;
  cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  CHECK(cmd.argv[3] == "--oversubscribe");
  CHECK(cmd.argv[4] == "--allow-run-as-root");

  SUBCASE("inside an allocation the slots are the allocation's") {
    auto slurm =
        detect_launch_environment([](const std::string& key) -> std::optional<std::string> {
          if (key == "SLURM_JOB_ID") return "77";
          if (key == "SLURM_NTASKS") return "64";
          return std::nullopt;
        });
    CHECK(slurm.in_allocation);
    CHECK(slurm.slots == 64u);
    CHECK(slurm.use_srun);  // launcher auto: srun inside an allocation
    slurm.use_srun = false;
    cmd = build_launch_command(c, "/w/c.json", "/w/r.db", slurm);
    CHECK(std::find(cmd.argv.begin(), cmd.argv.end(), "--oversubscribe") == cmd.argv.end());
  }
  SUBCASE("srun when asked, with the binding translated") {
    env.use_srun = true;
    env.srun = "srun";
    cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
    CHECK(cmd.launcher == "srun");
    // 3 ranks over 2 slots: srun is told to overcommit, as mpirun to oversubscribe.
    CHECK(cmd.argv == V{"srun", "--ntasks=3", "--overcommit", "--kill-on-bad-exit=1",
                        "--cpu-bind=cores", "culprit-step", "--config", "/w/c.json", "--out",
                        "/w/r.db"});
  }
  SUBCASE("a version's command replaces the workload, placeholders filled") {
    c.command = {"./app", "--cfg={config}", "{out}"};
    cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
    CHECK(cmd.argv.back() == "/w/r.db");
    CHECK(cmd.argv[cmd.argv.size() - 2] == "--cfg=/w/c.json");
    CHECK(cmd.argv[cmd.argv.size() - 3] == "./app");
    CHECK(cmd.argv[0] == "/usr/bin/mpirun");
  }
  SUBCASE("the simulator runs as one process without mpirun") {
    c.backend = "sim";
    cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
    CHECK(cmd.launcher == "direct");
    CHECK(cmd.argv == V{"culprit-sim", "--config", "/w/c.json", "--out", "/w/r.db"});
  }
}

TEST_CASE("item 9 (#38): only {config} and {out} are replaced, {{ and }} are literal braces") {
  const manifest::Configuration c =
      one_rank_command({"sh", "-c", "echo ${HOME} {{config}} | awk '{print $1}'", R"({"lr": 0.1})",
                        "--out={out}", "{{{config}}}"});
  const auto cmd = build_launch_command(c, "/w/c.json", "/w/r.db", plain_mpirun());
  const std::vector<std::string> tail(cmd.argv.end() - 6, cmd.argv.end());
  CHECK(tail == std::vector<std::string>{"sh", "-c", "echo ${HOME} {config} | awk '{print $1}'",
                                         R"({"lr": 0.1})", "--out=/w/r.db", "{/w/c.json}"});
}

TEST_CASE("placeholders and CULPRIT_* are absolute; the Python module is on PYTHONPATH") {
  LaunchEnvironment env = plain_mpirun();
  manifest::Configuration c = one_rank_command({"./wrapper", "{config}", "--out={out}"});
  const std::string cwd = std::filesystem::current_path().string();
  auto cmd = build_launch_command(c, "s.db.runs/1.1/config.json", "s.db.runs/./1.1/run.db", env);
  CHECK(cmd.env.at("CULPRIT_CONFIG") == cwd + "/s.db.runs/1.1/config.json");
  CHECK(cmd.env.at("CULPRIT_RUN_FILE") == cwd + "/s.db.runs/1.1/run.db");
  CHECK(cmd.argv[cmd.argv.size() - 2] == cwd + "/s.db.runs/1.1/config.json");
  CHECK(cmd.argv.back() == "--out=" + cwd + "/s.db.runs/1.1/run.db");
  CHECK(cmd.env.count("PYTHONPATH") == 0);  // nothing to add: left alone

  env.python_path = "/src/python:/site";
  cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  CHECK(cmd.env.at("PYTHONPATH") == "/src/python:/site");
  CHECK(std::find(cmd.argv.begin(), cmd.argv.end(), "PYTHONPATH") != cmd.argv.end());  // -x
  c.env = {{"PYTHONPATH", "/mine"}};
  cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  CHECK(cmd.env.at("PYTHONPATH") == "/src/python:/site:/mine");

  auto lookup = [](const std::string& k) -> std::optional<std::string> {
    if (k == "CULPRIT_PYTHON_DIR") return std::string("/opt/py");
    if (k == "PYTHONPATH") return std::string("/old");
    return std::nullopt;
  };
  CHECK(detect_launch_environment(lookup).python_path == "/opt/py:/old");
}

TEST_CASE("launch environment: --launcher, then [launch], then CULPRIT_LAUNCHER, then auto") {
  auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](const std::string& k) -> std::optional<std::string> {
      auto it = vars.find(k);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  const auto alloc = env_of({{"SLURM_JOB_ID", "42"},
                             {"SLURM_NTASKS", "4"},
                             {"SLURM_ARRAY_JOB_ID", "40"},
                             {"SLURM_ARRAY_TASK_ID", "2"},
                             {"SLURM_JOB_NODELIST", "n[1-2]"},
                             {"SLURM_JOB_NUM_NODES", "2"},
                             {"SLURM_MPI_TYPE", "pmix"}});
  const auto outside = env_of({});
  culprit::manifest::LaunchSettings none;
  // auto: srun inside an allocation, mpirun outside.
  CHECK(detect_launch_environment(none, "", alloc).use_srun);
  CHECK_FALSE(detect_launch_environment(none, "", outside).use_srun);
  culprit::manifest::LaunchSettings mpirun;
  mpirun.launcher = "mpirun";
  CHECK_FALSE(detect_launch_environment(mpirun, "", alloc).use_srun);
  CHECK(detect_launch_environment(mpirun, "srun", alloc).use_srun);  // --launcher wins
  CHECK(detect_launch_environment(mpirun, "srun", alloc).launcher_source == "--launcher");
  // CULPRIT_LAUNCHER is the fallback when neither is given.
  auto with_env = env_of({{"SLURM_JOB_ID", "42"}, {"CULPRIT_LAUNCHER", "mpirun"}});
  CHECK_FALSE(detect_launch_environment(none, "", with_env).use_srun);
  CHECK(detect_launch_environment(mpirun, "", with_env).launcher_source == "[launch] launcher");
  // srun outside an allocation says where the choice came from and what to do.
  CHECK_THROWS_WITH_AS(detect_launch_environment(none, "srun", outside),
                       doctest::Contains("--launcher = srun needs a Slurm allocation"), UsageError);

  auto env = detect_launch_environment(none, "", alloc);
  CHECK(env.srun_mpi_type == "pmix");
  CHECK(env.slurm.at("job_id") == "42");
  CHECK(env.slurm.at("array_task_id") == "2");
  CHECK(env.slurm.at("nodes") == "n[1-2]");
  culprit::manifest::Configuration c;
  c.label = "baseline";
  c.backend = "cpu";
  c.ranks = 6;
  env.srun = "srun";
  env.workload_dir.clear();
  env.ranks_per_node = 3;
  env.binding = "core";
  env.extra_args = {"--exclusive"};
  using V = std::vector<std::string>;
  auto cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  // 6 ranks in an allocation of 4 tasks: srun must be told to overcommit.
  CHECK(cmd.argv == V{"srun", "--ntasks=6", "--ntasks-per-node=3", "--overcommit",
                      "--kill-on-bad-exit=1", "--cpu-bind=cores", "--exclusive", "culprit-step",
                      "--config", "/w/c.json", "--out", "/w/r.db"});
  CHECK(cmd.mpi_type == "pmix");
  const auto prov = launch_provenance(cmd, env);
  auto value = [&](const std::string& key) {
    for (const auto& [k, v] : prov) {
      if (k == key) return v;
    }
    return std::string("<none>");
  };
  CHECK(value("launch.launcher") == "srun");
  CHECK(value("launch.mpi_type") == "pmix");
  CHECK(value("slurm.job_id") == "42");
  CHECK(value("slurm.array_job_id") == "40");
  CHECK(value("slurm.num_nodes") == "2");
  CHECK(value("launch.command_line").rfind(R"(["srun","--ntasks=6",)", 0) == 0);

  // mpirun with more ranks than slots and core binding needs overload-allowed.
  env.use_srun = false;
  env.mpirun = "mpirun";
  env.is_root = false;
  env.extra_args = {"--mca", "btl", "self,vader"};
  cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  CHECK(cmd.argv[3] == "--oversubscribe");
  CHECK(cmd.argv[4] == "--map-by");
  CHECK(cmd.argv[5] == "ppr:3:node");
  CHECK(cmd.argv[7] == "core:overload-allowed");
  CHECK(cmd.mpi_type == "mpirun");
  const auto workload = std::find(cmd.argv.begin(), cmd.argv.end(), "culprit-step");
  CHECK(V(workload - 3, workload) == V{"--mca", "btl", "self,vader"});
}

TEST_CASE("instrument pmpi: only the ranks get LD_PRELOAD of the interposer") {
  LaunchEnvironment env;
  env.mpirun = "mpirun";
  env.slots = 2;
  manifest::Configuration c;
  c.label = "version=melt";
  c.backend = "cpu";
  c.ranks = 2;
  c.command = {"lmp", "-in", "in.melt"};
  c.instrument = "pmpi";
  CHECK_THROWS_WITH_AS(build_launch_command(c, "/w/c.json", "/w/r.db", env),
                       doctest::Contains("libculprit_pmpi.so was not found"), UsageError);
  env.pmpi_library = "/opt/culprit/lib/libculprit_pmpi.so";
  auto cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  using V = std::vector<std::string>;
  CHECK(cmd.argv == V{"mpirun", "-np", "2", "--bind-to", "none", "-x", "CULPRIT_CONFIG", "-x",
                      "CULPRIT_RUN_FILE", "-x", "LD_PRELOAD=/opt/culprit/lib/libculprit_pmpi.so",
                      "lmp", "-in", "in.melt"});
  CHECK_FALSE(cmd.env.contains("LD_PRELOAD"));  // mpirun itself runs without the interposer
  c.env["LD_PRELOAD"] = "libtrace.so";  // a version's own preload comes after the interposer
  cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  CHECK(std::count(cmd.argv.begin(), cmd.argv.end(),
                   "LD_PRELOAD=/opt/culprit/lib/libculprit_pmpi.so:libtrace.so") == 1);
  CHECK(std::count(cmd.argv.begin(), cmd.argv.end(), "LD_PRELOAD") == 0);
  c.env.clear();
  env.use_srun = true;
  cmd = build_launch_command(c, "/w/c.json", "/w/r.db", env);
  CHECK(std::find(cmd.argv.begin(), cmd.argv.end(),
                  "--export=ALL,LD_PRELOAD=/opt/culprit/lib/libculprit_pmpi.so") != cmd.argv.end());
  // CULPRIT_PMPI_LIBRARY names it explicitly.
  const auto found =
      detect_launch_environment([](const std::string& key) -> std::optional<std::string> {
        if (key == "CULPRIT_PMPI_LIBRARY") return "/x/libculprit_pmpi.so";
        return std::nullopt;
      });
  CHECK(found.pmpi_library == "/x/libculprit_pmpi.so");
}

TEST_CASE("launch environment: unknown launcher or binding is a usage error") {
  auto with = [](std::string key, std::string value) {
    return [key, value](const std::string& k) -> std::optional<std::string> {
      if (k == key) return value;
      return std::nullopt;
    };
  };
  CHECK_THROWS_AS(detect_launch_environment(with("CULPRIT_LAUNCHER", "ssh")), UsageError);
  CHECK_THROWS_AS(detect_launch_environment(with("CULPRIT_LAUNCHER", "srun")), UsageError);
  CHECK_THROWS_AS(detect_launch_environment(with("CULPRIT_BIND", "everywhere")), UsageError);
  CHECK(detect_launch_environment(with("CULPRIT_BIND", "core")).binding == "core");
  CHECK(detect_launch_environment(with("X", "")).binding == "none");
}

TEST_CASE("run_process: exit codes, signals, timeouts, tails, launch failures") {
  ProcessSpec spec;
  spec.argv = {"true"};
  auto r = run_process(spec);
  CHECK(r.started);
  CHECK(r.exit_code.value() == 0);
  CHECK(r.cpu_s >= 0);  // CPU time and context switches of the child (contention provenance)
  CHECK(r.cpu_s <= r.wall_s + 0.5);
  CHECK(r.involuntary_switches >= 0);

  spec.argv = {fake_workload(), "--mode", "exit3"};
  r = run_process(spec);
  CHECK(r.exit_code.value() == 3);
  CHECK(r.stdout_tail == "fake workload: mode exit3\n");
  CHECK(r.stderr_tail == "fake workload stderr\n");

  spec.argv = {fake_workload(), "--mode", "crash"};
  r = run_process(spec);
  CHECK_FALSE(r.exit_code.has_value());
  CHECK(r.signal.value() == SIGKILL);

  spec.argv = {"seq", "1", "20000"};
  spec.tail_bytes = 100;
  r = run_process(spec);
  CHECK(r.stdout_tail.size() == 100);
  CHECK(r.stdout_tail.substr(r.stdout_tail.size() - 6) == "20000\n");

  spec.argv = {"no-such-program-culprit"};
  r = run_process(spec);
  CHECK_FALSE(r.started);
  CHECK(r.launch_error.find("not found") != std::string::npos);

  spec.argv = {"env"};
  spec.env = {{"CULPRIT_UNIT_MARK", "42"}};
  spec.tail_bytes = 1 << 20;
  r = run_process(spec);
  CHECK(r.stdout_tail.find("CULPRIT_UNIT_MARK=42\n") != std::string::npos);

  spec.argv = {fake_workload(), "--mode", "hang"};
  spec.env.clear();
  spec.timeout_s = 0.5;
  spec.grace_s = 0.5;
  int ticks = 0;
  r = run_process(spec, [&](double) { ++ticks; });
  CHECK(r.timed_out);
  CHECK(r.signal.value() == SIGTERM);
  CHECK(r.wall_s < 10);  // generous: it was killed, not waited for
}

TEST_CASE("parse_shard") {
  CHECK(parse_shard("2/3").index == 2);
  CHECK(parse_shard("2/3").count == 3);
  CHECK(parse_shard("1/1").text().empty());
  CHECK(parse_shard("2/3").contains(1));
  CHECK_FALSE(parse_shard("2/3").contains(2));
  for (const char* bad : {"0/2", "3/2", "1", "a/b", "1/2x", "/"}) {
    CHECK_THROWS_AS(parse_shard(bad), UsageError);
  }
}

TEST_CASE("a sweep stores every run with its step times and resumes without rerunning") {
  TempStore store("sweep");
  auto db = storage::open_store(store.path);
  auto plan =
      fake_plan({fake_config("baseline", {"--step-ms", "10"}),
                 fake_config("v2", {"--step-ms", "12", "--slow-rank", "1", "--slow-ms", "3"})},
                2);
  RecordingSink sink;
  auto result = execute_plan(*db, plan, quick_options(), &sink);
  CHECK(result.all_ok());
  CHECK(result.planned == 4);
  CHECK(result.runs.size() == 4);
  CHECK(sink.to_run == 4);
  CHECK(sink.ends == 4);
  for (const auto& run : storage::list_runs(*db)) {
    CHECK(run.status == "ok");
    CHECK(run.median_ms.value() == doctest::Approx(run.config == "baseline" ? 10.0 : 15.0));
  }
  // steps: 4 per run (step 0 is warm-up); the slow rank finishes last in v2.
  CHECK(db->query_int("SELECT count(*) FROM steps").value() == 16);
  CHECK(db->query_int("SELECT count(DISTINCT last_rank) FROM steps s JOIN runs r ON "
                      "r.id = s.run_id JOIN configurations c ON c.id = r.config_id "
                      "WHERE c.label = 'v2'")
            .value() == 1);
  CHECK(db->query_int("SELECT count(*) FROM runs WHERE launcher = 'direct' AND attempt = 1")
            .value() == 4);
  CHECK_FALSE(fs::exists(store.path + ".runs/1.1"));  // run folders go after ingest

  auto again = execute_plan(*db, plan, quick_options());
  CHECK(again.already_ok == 4);
  CHECK(again.runs.empty());
  CHECK(db->query_int("SELECT count(*) FROM runs").value() == 4);
  // Every ok run records the machine's contention beside it (rank -1: the job).
  CHECK(db->query_int("SELECT count(DISTINCT run_id) FROM provenance WHERE rank = -1 AND key = "
                      "'contention.cpu_per_wall'")
            .value() == 4);
  CHECK(db->query_int("SELECT count(*) FROM provenance WHERE rank = -1 AND key = "
                      "'contention.involuntary_switches'")
            .value() == 4);

  SUBCASE("a run left `running` by a dead orchestrator is rerun as attempt 2") {
    db->exec("UPDATE runs SET status = 'running' WHERE repetition = 1 AND config_id = 1");
    auto resumed = execute_plan(*db, plan, quick_options());
    CHECK(resumed.interrupted == 1);
    REQUIRE(resumed.runs.size() == 1);
    CHECK(resumed.runs[0].attempt == 2);
    CHECK(status_counts(*db) == std::map<std::string, int>{{"ok", 4}});
    CHECK(db->query_int("SELECT coalesce(sum(events), 0) FROM run_event_packs").value() ==
          4 * 4 * 2);
  }
  SUBCASE("a changed manifest is refused unless forced, and the change is recorded") {
    plan.settings.manifest_hash = "manifest-hash-2";
    CHECK_THROWS_WITH_AS(execute_plan(*db, plan, quick_options()),
                         doctest::Contains("different manifest"), UsageError);
    auto options = quick_options();
    options.force = true;
    plan.configs[1] = fake_config("v2", {"--step-ms", "20"});
    plan.configs[1].config_hash = "hash-v2-changed";
    auto forced = execute_plan(*db, plan, options);
    CHECK(forced.runs.size() == 2);  // the changed configuration's runs
    CHECK(db->query_text("SELECT forced_changes FROM experiments")
              .value()
              .find("manifest-hash-1 -> manifest-hash-2") != std::string::npos);
    CHECK(db->query_int("SELECT count(*) FROM configurations WHERE label = 'v2' AND superseded")
              .value() == 1);
    CHECK(db->query_int("SELECT count(*) FROM configurations WHERE label = 'v2' AND NOT superseded")
              .value() == 1);
    // `culprit runs` still tells the superseded configuration's runs from the current ones.
    int superseded_runs = 0;
    for (const auto& run : storage::list_runs(*db)) {
      superseded_runs += run.config.rfind("v2 [superseded ", 0) == 0 ? 1 : 0;
    }
    CHECK(superseded_runs == 2);
  }
}

TEST_CASE("failures are classified and the sweep goes on") {
  TempStore store("failures");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan(
      {fake_config("baseline", {}), fake_config("hang", {"--mode", "hang"}),
       fake_config("exit", {"--mode", "exit3"}), fake_config("crash", {"--mode", "crash"}),
       fake_config("nofile", {"--mode", "nofile"}), fake_config("badfile", {"--mode", "badfile"}),
       fake_config("incomplete", {"--mode", "incomplete"})},
      1);
  plan.settings.timeout_s = 1;
  auto result = execute_plan(*db, plan, quick_options());
  CHECK(result.runs.size() == 7);
  CHECK(result.not_ok == 6);
  std::map<std::string, storage::RunSummary> by_config;
  for (const auto& run : storage::list_runs(*db)) by_config[run.config] = run;
  CHECK(by_config["baseline"].status == "ok");
  CHECK(by_config["hang"].status == "timeout");
  CHECK(by_config["exit"].status == "failed");
  CHECK(by_config["exit"].error == "exited with code 3");
  CHECK(by_config["crash"].status == "crashed");
  CHECK(by_config["nofile"].status == "failed");
  CHECK(by_config["nofile"].error.find("bad run file") != std::string::npos);
  CHECK(by_config["badfile"].status == "failed");
  CHECK(by_config["incomplete"].status == "failed");
  // Issue 38 item 6: the error says why there is none.
  CHECK(by_config["incomplete"].error ==
        "no complete steady-state step: every step recorded (0..1) is within the warm-up "
        "(warmup_steps = 2)");
  CHECK(db->query_text("SELECT stderr_tail FROM runs WHERE id = " +
                       std::to_string(by_config["exit"].id))
            .value() == "fake workload stderr\n");
  // Failed runs are kept as they are on resume unless asked to retry them.
  CHECK(execute_plan(*db, plan, quick_options()).runs.empty());
  auto options = quick_options();
  options.retry_failed = true;
  options.fail_fast = true;
  auto retried = execute_plan(*db, plan, options);
  CHECK(retried.runs.size() == 1);  // fail-fast: the first failure stops the sweep
  CHECK(retried.stopped_early);
}

TEST_CASE("a missing workload is refused before any run, nothing registered") {
  TempStore store("missing_workload");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan({fake_config("baseline", {}), fake_config("missing", {})}, 2);
  plan.configs[1].command = {"/nonexistent/culprit-app", "{out}"};
  CHECK_THROWS_WITH_AS(execute_plan(*db, plan, quick_options()),
                       doctest::Contains("workload '/nonexistent/culprit-app' of configuration "
                                         "'missing' is not an executable file"),
                       UsageError);
  // A new experiment is not even registered: fixing the manifest is no change to --force.
  CHECK(status_counts(*db).empty());
  CHECK_FALSE(storage::find_experiment(*db, "unit"));
}

TEST_CASE("a simulated configuration larger than one run can hold is refused before running") {
  TempStore store("too_many_events");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan({fake_config("baseline", {})}, 1);
  manifest::Configuration& c = plan.configs[0];
  c.command.clear();  // the built-in culprit-sim
  c.ranks = 1 << 20;
  c.run.ranks = c.ranks;
  c.run.model.layers = 8;
  c.run.model.microbatches = 4;
  c.run.warmup_steps = 2;
  c.run.steps = 98;
  // 3 GEMMs per layer and microbatch, the buckets' all-reduces, the optimizer and the step event.
  const auto per_step = static_cast<long long>(stepmodel::step_schedule(c.run.model).size() + 1);
  const std::string events = std::to_string(per_step * (1LL << 20) * 100);
  CHECK_THROWS_WITH_AS(
      execute_plan(*db, plan, quick_options()),
      ("configuration 'baseline' simulates " + events + " events a run (1048576 ranks x 100 " +
       "steps x " + std::to_string(per_step) +
       " events a rank and step), more than the 2147483647 one run can hold (analysis indexes "
       "a run's events with 32-bit integers): nothing was run; lower ranks, steps, layers or "
       "microbatches")
          .c_str(),
      UsageError);
  CHECK(status_counts(*db).empty());
  c.ranks = c.run.ranks = 1024;  // 1024 x 100 x per_step fits: no refusal for its size
  try {
    preflight(plan, {0}, quick_options().launch);
  } catch (const UsageError& e) {  // culprit-sim may not resolve here; the size is not refused
    CHECK(std::string(e.what()).find("events a run") == std::string::npos);
  }
}

namespace {

// A folder with hand-written stand-ins: `python3` runs the real interpreter with a fake torch
// package first on its path ("good") or with a torch that cannot be imported ("without-torch");
// culprit/ is a fake culprit package, put on PYTHONPATH as `culprit run` puts the real one.
struct FakePythons {
  fs::path root = fs::temp_directory_path() / "culprit_unit_preflight";
  FakePythons() {
    fs::remove_all(root);
    write("culprit/__init__.py", "");
    write("good-site/torch/__init__.py", "__version__ = '0.0-fake'\n");
    write("good-site/torch/distributed.py", "");
    write("no-torch-site/torch/__init__.py",
          "raise ModuleNotFoundError(\"No module named 'torch'\")\n");
    for (const char* kind : {"good", "no-torch"}) {
      const fs::path script = root / kind / "python3";
      write(fs::relative(script, root).string(),
            "#!/bin/sh\nPYTHONPATH=" + (root / (std::string(kind) + "-site")).string() +
                ":$PYTHONPATH exec " + real_python() + " \"$@\"\n");
      fs::permissions(script, fs::perms::owner_all);
    }
  }
  ~FakePythons() { fs::remove_all(root); }
  std::string good() const { return (root / "good" / "python3").string(); }
  std::string without_torch() const { return (root / "no-torch" / "python3").string(); }
  static std::string real_python() {
    for (const char* name : {"python3", "/usr/bin/python3"})
      if (auto found = find_in_path(name)) return *found;
    return "python3";
  }
  void write(const std::string& relative, const std::string& text) const {
    fs::create_directories((root / relative).parent_path());
    std::ofstream(root / relative) << text;
  }
};

}  // namespace

TEST_CASE("preflight: resolved paths, a Python interpreter without torch names the fix") {
  const FakePythons fake;
  auto plan = fake_plan({fake_config("baseline", {}), fake_config("v2", {})}, 1);
  plan.settings.manifest_path = "experiments/torch-ddp.toml";
  auto options = quick_options();
  options.launch.python_path = (fake.root).string();
  options.launch.suggested_python = fake.good();
  // A tiny fake command: its absolute path, checked once.
  CHECK(preflight(plan, {0, 1}, options.launch) ==
        std::vector<std::string>{fake_workload() + " -> " + fake_workload()});
  CHECK(is_python_interpreter("/usr/bin/python3.11"));
  CHECK(is_python_interpreter("python"));
  CHECK_FALSE(is_python_interpreter("pythonista"));
  CHECK_FALSE(is_python_interpreter("/opt/python3/bin/lmp"));

  plan.configs[0].command = {fake.good(), "train.py", "--out", "{out}"};
  const auto lines = preflight(plan, {0}, options.launch);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == fake.good() + " -> " + fake.good() + " (torch 0.0-fake, culprit from " +
                        (fake.root / "culprit" / "__init__.py").string() + ")");

  plan.configs[1].command = {fake.without_torch(), "train.py", "--out", "{out}"};
  plan.configs[1].python_placeholder = true;
  CHECK_THROWS_WITH_AS(
      preflight(plan, {0, 1}, options.launch),
      ("configuration 'v2' runs the Python interpreter '" + fake.without_torch() + "' (" +
       fake.without_torch() +
       "), which cannot import torch (ModuleNotFoundError: No module named 'torch') with the "
       "run's environment: nothing was run; set [experiment] python = \"" +
       fake.good() + "\" in experiments/torch-ddp.toml (" + fake.good() +
       " imports torch and culprit here), then run again")
          .c_str(),
      UsageError);
  // Written as "python3" (no placeholder) and nothing better found: both halves of the fix.
  plan.configs[1].python_placeholder = false;
  options.launch.suggested_python = "";
  const std::string both_halves =
      "set [experiment] python = \"/path/to/python3-with-torch\" in experiments/torch-ddp.toml "
      "and write \"{python}\" as the command's first word instead of \"" +
      fake.without_torch() + "\"";
  CHECK_THROWS_WITH_AS(preflight(plan, {1}, options.launch), doctest::Contains(both_halves.c_str()),
                       UsageError);
}

TEST_CASE("torchrun: the Python command's interpreter runs torch.distributed.run") {
  auto env = detect_launch_environment(manifest::LaunchSettings{"torchrun", 0, "", {}}, "",
                                       [](const std::string&) { return std::nullopt; });
  CHECK(env.use_torchrun);
  manifest::Configuration c = fake_config("baseline", {}, "cpu", 2);
  c.command = {"/usr/bin/python3", "train.py", "--config", "{config}", "--out", "{out}"};
  const LaunchCommand command = build_launch_command(c, "/w/config.json", "/w/r/run.db", env);
  CHECK(command.launcher == "torchrun");
  CHECK(command.argv == std::vector<std::string>{"/usr/bin/python3", "-m", "torch.distributed.run",
                                                 "--nproc_per_node=2", "--standalone",
                                                 "--redirects", "1", "--tee", "2", "--log_dir",
                                                 "/w/r/torchrun", "train.py", "--config",
                                                 "/w/config.json", "--out", "/w/r/run.db"});
  CHECK(command.env.at("CULPRIT_RUN_FILE") == "/w/r/run.db");
  c.command = {"./lmp", "-in", "in.melt"};
  CHECK_THROWS_WITH_AS(build_launch_command(c, "/w/config.json", "/w/r/run.db", env),
                       doctest::Contains("launcher torchrun runs Python commands"), UsageError);
}

TEST_CASE("the first runs of two configurations failing alike stop the sweep") {
  TempStore store("failing_alike");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan({fake_config("baseline", {"--mode", "exit3"}),
                         fake_config("v2", {"--mode", "exit3"}), fake_config("v3", {})},
                        2);
  const auto result = execute_plan(*db, plan, quick_options());
  REQUIRE(result.runs.size() == 2);
  CHECK(result.stopped_early);
  CHECK(result.stop_reason ==
        "the first runs of 'baseline' and 'v2' failed alike (exited with code 3): the cause is "
        "what they share (command, interpreter, environment), so the rest stays pending; run " +
            std::to_string(result.runs[1].run_id) +
            "'s stderr tail above says why (kept in the store: runs.stderr_tail)");
  CHECK(result.pending == 4);
  CHECK(failure_signature(result.runs[0]) == failure_signature(result.runs[1]));
  CHECK(status_counts(*db) == std::map<std::string, int>{{"failed", 2}, {"pending", 4}});
}

TEST_CASE("an environment error stops the sweep and leaves the rest pending") {
  TempStore store("environment_error");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan({fake_config("baseline", {}), fake_config("v2", {})}, 2);
  auto options = quick_options();
  options.work_dir = store.path + ".blocked";
  { std::ofstream blocker(options.work_dir); }  // a file where the run folders should go
  auto result = execute_plan(*db, plan, options);
  REQUIRE(result.runs.size() == 1);
  CHECK(result.runs[0].environment_error);
  CHECK(result.stopped_early);
  CHECK(result.stop_reason.find("environment error in run") != std::string::npos);
  CHECK(result.pending == 3);
  CHECK(status_counts(*db) == std::map<std::string, int>{{"failed", 1}, {"pending", 3}});
  fs::remove(options.work_dir);
}

TEST_CASE("shards run separately and merged equal the whole plan") {
  TempStore full("full"), one("shard1"), two("shard2"), merged("merged");
  auto plan = fake_plan({fake_config("baseline", {}), fake_config("v2", {"--step-ms", "11"})}, 3);
  for (auto [store, shard] : {std::pair{&one, "1/2"}, std::pair{&two, "2/2"}}) {
    auto db = storage::open_store(store->path);
    auto options = quick_options();
    options.shard = parse_shard(shard);
    auto r = execute_plan(*db, plan, options);
    CHECK(r.planned == 3);
    CHECK(r.all_ok());
  }
  auto db = storage::open_store(merged.path);
  storage::merge_store(*db, one.path);
  storage::merge_store(*db, two.path);
  auto runs = storage::list_runs(*db);
  REQUIRE(runs.size() == 6);
  std::set<std::pair<std::string, int>> keys;
  for (const auto& r : runs) {
    CHECK(r.status == "ok");
    keys.insert({r.config, r.repetition});
  }
  CHECK(keys.size() == 6);
  const auto before = storage::merge_store(*db, two.path);
  CHECK(before.runs_added + before.runs_replaced == 0);
  CHECK(storage::list_runs(*db).size() == 6);
  // The merged store resumes like a full one: nothing is left to run.
  CHECK(execute_plan(*db, plan, quick_options()).runs.empty());
}

TEST_CASE("ensure_ok_runs adds balanced repetitions until each configuration has enough") {
  TempStore store("ensure");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan({fake_config("baseline", {}), fake_config("v2", {"--step-ms", "11"}),
                         fake_config("broken", {"--mode", "exit3"})},
                        1);
  execute_plan(*db, plan, quick_options());
  auto r = ensure_ok_runs(*db, plan, {0, 1}, 3, quick_options());
  CHECK(r.all_ok());
  CHECK(r.runs.size() == 4);
  CHECK(db->query_int("SELECT count(*) FROM runs WHERE status = 'ok'").value() == 6);
  // A configuration that keeps failing stops after one block instead of looping.
  auto broken = ensure_ok_runs(*db, plan, {2}, 2, quick_options());
  CHECK(broken.not_ok == 2);
  CHECK(broken.runs.size() == 2);
  // Asking again for what exists runs nothing.
  CHECK(ensure_ok_runs(*db, plan, {0, 1}, 3, quick_options()).runs.empty());
}

TEST_CASE("the cpu backend runs the command under mpirun with 2 ranks") {
  TempStore store("mpirun");
  auto db = storage::open_store(store.path);
  auto plan = fake_plan({fake_config("baseline", {"--step-ms", "7"}, "cpu", 2),
                         fake_config("crash", {"--mode", "crash"}, "cpu", 2)},
                        1);
  auto options = quick_options();
  options.launch = detect_launch_environment();
  auto result = execute_plan(*db, plan, options);
  REQUIRE(result.runs.size() == 2);
  INFO(result.runs[1].error, "\n", result.runs[1].stderr_tail);
  CHECK(result.runs[1].status == storage::RunStatus::kCrashed);
  CHECK(result.runs[1].error.find("signal 9") != std::string::npos);
  INFO(result.runs[0].error, "\n", result.runs[0].stderr_tail);
  CHECK(result.runs[0].status == storage::RunStatus::kOk);
  CHECK(result.runs[0].median_ms.value() == doctest::Approx(7.0));
  CHECK(db->query_int("SELECT count(*) FROM runs WHERE launcher = 'mpirun' AND binding = 'none'")
            .value() == 2);
}

TEST_CASE("item 12 (#38): SIGINT during culprit import stores nothing and exits 130") {
  // A real trace pair (tests/data/importers/ddp-last-work-cut); the signal arrives while the
  // traces are read (raised under an outer scope, as a Ctrl-C would be).
  const std::string db =
      (std::filesystem::temp_directory_path() / "culprit_unit_import_sigint.db").string();
  std::filesystem::remove(db);
  importers::ImportOptions options;
  options.experiment = "interrupted";
  options.label = "baseline";
  const InterruptScope scope;
  raise(SIGINT);
  try {
    import_into_store(db, {CULPRIT_TEST_DATA "/importers/ddp-last-work-cut/traces"}, options,
                      {"culprit", "import"});
    FAIL("the import was not stopped");
  } catch (const Interrupted& e) {
    CHECK(e.exit_code() == 130);
    CHECK(std::string(e.what()).find("nothing was stored") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(db));
}
