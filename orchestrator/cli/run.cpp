#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>

#include "culprit/bisect/decide_sweep.hpp"
#include "culprit/launch/execute.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/report/run_report.hpp"
#include "culprit/report/terminal_text.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct RunOptions {
  CommonOptions common;
  std::string manifest;
  std::string shard = "1/1";
  bool fail_fast = false;
  bool keep_run_files = false;
  bool force = false;
  bool retry_failed = false;
  std::string launcher;  // --launcher: auto | mpirun | srun | torchrun
};

std::string duration_text(double seconds) {
  if (seconds < 0) return "?";
  const long s = std::lround(seconds);
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + std::to_string(s % 3600 / 60) + "m";
}

// A live line on a terminal; one log line per finished run otherwise (CI logs, pipes).
class SweepProgress : public launch::ProgressSink {
 public:
  SweepProgress() : live_(isatty(STDERR_FILENO) != 0) {}

  void on_sweep_start(int already_ok, int to_run, int interrupted) override {
    if (interrupted > 0) {
      spdlog::warn("{} run(s) were in flight when an earlier culprit stopped; running them again",
                   interrupted);
    }
    if (already_ok > 0) spdlog::info("resuming: {} run(s) already ok", already_ok);
    spdlog::info("{} run(s) to execute", to_run);
  }
  void on_preflight(const std::vector<std::string>& lines) override {
    for (const std::string& line : lines) spdlog::info("preflight: {}", report::printable(line));
  }
  void on_run_start(const launch::RunProgress& p) override {
    if (live_) draw(p);
  }
  void on_run_tick(const launch::RunProgress& p) override {
    if (live_) draw(p);
  }
  void on_run_end(const launch::RunProgress& p, const launch::RunReport& r) override {
    if (live_) std::fputs("\r\033[K", stderr);
    const std::string line = fmt::format("[{}/{}] {} #{} (run {}): {} ({:.1f} s)", p.index, p.total,
                                         report::printable(p.config), p.repetition, r.run_id,
                                         report::printable(report::run_outcome_text(r)), r.wall_s);
    if (!r.warning.empty()) spdlog::warn("run {}: {}", r.run_id, r.warning);
    if (r.status == storage::RunStatus::kOk) {
      spdlog::info("{}", line);
    } else {
      spdlog::warn("{}", line);
      const std::string signature = launch::failure_signature(r);
      if (!r.stderr_tail.empty() && signature == last_failure_) {
        spdlog::warn("stderr tail: as run {}'s above", last_failed_run_);
      } else if (!r.stderr_tail.empty()) {
        last_failure_ = signature;
        last_failed_run_ = r.run_id;
        // The child's own lines, kept as lines; only escape sequences are neutralised.
        std::string tail;
        for (const char c : r.stderr_tail) {
          tail += c == '\n' ? std::string("\n") : report::printable(std::string_view(&c, 1));
        }
        spdlog::warn("stderr tail:\n{}", tail);
      }
    }
  }

 private:
  void draw(const launch::RunProgress& p) {
    std::fprintf(stderr, "\r\033[K[%d/%d] %s #%d  %s elapsed  ETA %s", p.index, p.total,
                 p.config.c_str(), p.repetition, duration_text(p.elapsed_s).c_str(),
                 duration_text(p.eta_s).c_str());
    std::fflush(stderr);
  }
  bool live_;
  std::string last_failure_;  // failure_signature of the last tail printed
  std::int64_t last_failed_run_ = 0;
};

}  // namespace

void register_run(CLI::App& app, Outcome& outcome) {
  const auto [command, o] = add_store_command<RunOptions>(
      app, "run",
      "Run (or resume) every planned run of a manifest and store each step of each rank");
  command->add_option("MANIFEST", o->manifest, "The experiment manifest (TOML)")->required();
  command->add_option("--shard", o->shard,
                      "Run shard I of N: the planned runs whose position % N == I-1 (merge the "
                      "shard databases with `culprit merge`)");
  add_launcher_option(*command, o->launcher);
  command->add_flag("--fail-fast", o->fail_fast, "Stop the sweep at the first run that is not ok");
  command->add_flag("--keep-run-files", o->keep_run_files,
                    "Keep each run's folder (<db>.runs/<run>.<attempt>/) after ingest");
  command->add_flag("--force", o->force,
                    "Resume even though the manifest changed since the database was started "
                    "(the change is recorded in experiments.forced_changes)");
  command->add_flag("--retry-failed", o->retry_failed,
                    "Also rerun runs that finished failed, timeout or crashed");
  command->callback([&outcome, o = o] {
    // Everything that can be wrong with the input is checked before the database is created.
    auto plan = manifest::make_plan(manifest::load_manifest(o->manifest));
    launch::ExecuteOptions options;
    options.shard = launch::parse_shard(o->shard);
    options.fail_fast = o->fail_fast;
    options.keep_run_files = o->keep_run_files;
    options.force = o->force;
    options.retry_failed = o->retry_failed;
    options.launch = launch::detect_launch_environment(plan.settings.launch, o->launcher);
    spdlog::debug("launcher: {} ({}: {})", options.launch.use_srun ? "srun" : "mpirun",
                  options.launch.launcher_source, options.launch.launcher_choice);
    const std::string db_path = store_path(o->common, plan.settings.db);
    auto db = storage::open_store(db_path);
    SweepProgress progress;
    const auto result = launch::execute_plan(*db, plan, options, &progress);
    const auto sampling = bisect::decide_sweep(*db, plan, options, result, &progress);
    print(report::run_result_document(db_path, o->manifest, o->shard, result, sampling,
                                      o->common.format()));
    const bool all_ok = result.all_ok() && sampling.added.all_ok();
    outcome.exit_code = all_ok ? exit_code::kOk : exit_code::kRunFailed;
  });
}

}  // namespace culprit::cli
