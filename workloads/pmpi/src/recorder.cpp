#include "recorder.hpp"
#include "runfile/meta_keys.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "stepclock/clock_model.hpp"
#include "stepmodel/config.hpp"

namespace culprit::pmpi {
namespace {

constexpr std::int64_t kDefaultEvents = 1 << 20;
// The stepclock ping-pong, adaptively: a program's ranks come out of MPI_Init at different
// moments and on a loaded host whole series of round trips can be long, so after 20 exchanges
// it goes on until one round trip is within 20 us, up to 5000 exchanges or 3 s per rank.
constexpr int kMaxSyncExchanges = 5000;
constexpr double kTargetRttUs = 20;
constexpr double kSyncBudgetMs = 3000;

std::string env_or(const char* key, const char* fallback) {
  const char* value = std::getenv(key);
  return value && *value ? value : fallback;
}

std::int64_t integer_from_env(const char* key, std::int64_t fallback, std::int64_t min) {
  const std::string text = env_or(key, "");
  if (text.empty()) return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < min) {
    throw std::runtime_error(std::string(key) + "=" + text +
                             " is not an integer >= " + std::to_string(min));
  }
  return value;
}

}  // namespace

thread_local bool Recorder::t_main_thread __attribute__((tls_model("initial-exec"))) = false;

Recorder& recorder() {
  static Recorder instance;
  return instance;
}

void Recorder::start(int thread_level) {
  t_main_thread = true;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  try {
    const std::string config_path = env_or("CULPRIT_CONFIG", "");
    config_json_ = config_path.empty() ? "{}" : stepmodel::read_run_config_text(config_path);
    const stepmodel::RunConfig config = stepmodel::parse_run_config(config_json_);
    run_file_ = env_or("CULPRIT_RUN_FILE", "");
    rule_call_ = call_index(config.step_rule.call);
    if (rule_call_ >= kCallCount) rule_call_ = kPcontrol;
    steps_ = StepCounter(config.step_rule.every, config.warmup_steps + config.steps);
    delays_ = DelayPlan(config.inject.delays, rank_);
    sync_exchanges_ = static_cast<int>(
        integer_from_env("CULPRIT_PMPI_SYNC_EXCHANGES", stepclock::kDefaultClockExchanges, 10));
    if (stepclock_init(MPI_COMM_WORLD,
                       integer_from_env("CULPRIT_PMPI_EVENTS", kDefaultEvents, 1)) != 0) {
      throw std::runtime_error(stepclock_last_error());
    }
    started_ = true;
    for (const auto& skew : config.inject.clock_skews) {
      if (skew.rank == rank_) stepclock_inject_clock_skew(skew.offset_ms, skew.drift_ppm);
    }
    for (std::size_t c = 0; c < kCallCount; ++c) {
      const std::string name(call_name(c));
      call_names_[c] = stepclock_name(name.c_str());
      compute_names_[c] =
          stepclock_name((std::string(stepmodel::kPmpiComputePrefix) + name).c_str());
    }
    step_name_ = stepclock_name("step");
    comms_.init(integer_from_env("CULPRIT_PMPI_COMM_NAMES", CommTable::kDefaultNameBudget, 0));
    stepclock_set_meta(runfile::meta::kBackend, "cpu");
    stepclock_set_meta(runfile::meta::kSource, "pmpi");
    stepclock_set_meta(runfile::meta::kWarmupSteps, std::to_string(config.warmup_steps).c_str());
    stepclock_set_meta(runfile::meta::kSteps, std::to_string(config.steps).c_str());
    const std::string rule =
        config.step_rule.call == "MPI_Pcontrol"
            ? std::string("pcontrol")
            : config.step_rule.call + " every " + std::to_string(config.step_rule.every);
    stepclock_add_job_provenance("instrument", "pmpi");
    stepclock_add_job_provenance("step_rule", rule.c_str());
    stepclock_add_job_provenance("mpi_thread_level", std::to_string(thread_level).c_str());
    if (thread_level == MPI_THREAD_MULTIPLE && rank_ == 0) {
      std::fprintf(stderr,
                   "culprit-pmpi: MPI_THREAD_MULTIPLE: only the thread that called MPI_Init is "
                   "recorded (docs/pmpi.md)\n");
    }
    if (delays_.skipped() > 0) {
      std::fprintf(stderr, "culprit-pmpi: rank %d: more than %zu delays, %zu ignored\n", rank_,
                   DelayPlan::kMax, delays_.skipped());
    }
    if (stepclock_sync_start_adaptive(sync_exchanges_, std::max(sync_exchanges_, kMaxSyncExchanges),
                                      kTargetRttUs, kSyncBudgetMs) != 0)
      throw std::runtime_error(stepclock_last_error());
    last_return_ns_ = stepclock_now();
    active_ = true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "culprit-pmpi: rank %d: not recording: %s\n", rank_, e.what());
  }
}

void Recorder::finish() {
  if (!active_) return;
  enter(kFinalize);
  active_ = false;
  if (stepclock_sync_end_adaptive(sync_exchanges_, std::max(sync_exchanges_, kMaxSyncExchanges),
                                  kTargetRttUs, kSyncBudgetMs) != 0) {
    std::fprintf(stderr, "culprit-pmpi: rank %d: %s\n", rank_, stepclock_last_error());
  }
  if (const std::int64_t unrecorded = comms_.unrecorded(); unrecorded > 0) {
    // Said in the run file (gathered with it) and on stderr, like a full buffer.
    stepclock_add_provenance("pmpi.collectives_unrecorded", std::to_string(unrecorded).c_str());
    std::fprintf(stderr,
                 "culprit-pmpi: rank %d: %lld collective call(s) on communicators not recorded: "
                 "their event names would pass the budget of CULPRIT_PMPI_COMM_NAMES (raise it, "
                 "at most 65,000 in all)\n",
                 rank_, static_cast<long long>(unrecorded));
  }
  if (!run_file_.empty()) {
    if (stepclock_write_run_file(run_file_.c_str(), config_json_.c_str()) != 0 && rank_ == 0) {
      std::fprintf(stderr, "culprit-pmpi: %s\n", stepclock_last_error());
    }
  }
  const std::int64_t dropped = stepclock_dropped();
  if (dropped > 0) {
    std::fprintf(stderr,
                 "culprit-pmpi: rank %d: buffer full, %lld events dropped (raise "
                 "CULPRIT_PMPI_EVENTS)\n",
                 rank_, static_cast<long long>(dropped));
  }
  if (started_) stepclock_finalize();
}

}  // namespace culprit::pmpi
