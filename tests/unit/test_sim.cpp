#include <doctest/doctest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "sim/run_file.hpp"
#include "sim/simulator.hpp"
#include "sim/summary.hpp"
#include "stepmodel/schedule.hpp"

namespace {

using stepclock::EventKind;
using stepclock::EventRecord;

constexpr double kMs = 1e6;

// Two ranks, two layers, one microbatch, one bucket, no noise: every GEMM takes 1 ms, the
// optimizer 2 ms, the all-reduce bytes/link + 2 hops = 1 ms + 10 us.
// A simulated run of two ranks, one warm-up step and two measured ones.
stepmodel::RunConfig two_rank_sim(std::uint64_t seed) {
  stepmodel::RunConfig c;
  c.backend = "sim";
  c.seed = seed;
  c.ranks = 2;
  c.warmup_steps = 1;
  c.steps = 3;
  return c;
}

stepmodel::RunConfig exact_config() {
  stepmodel::RunConfig c = two_rank_sim(7);
  auto& m = c.model;
  m.layers = 2;
  m.microbatches = 1;
  m.buckets = 1;
  m.tokens = 64;
  m.hidden = 128;
  m.flops_per_s = stepmodel::gemm_fwd_flops(m) * 1000.0;
  m.mem_bytes_per_s = 5.0 * static_cast<double>(stepmodel::parameter_bytes(m)) * 500.0;
  m.link_bytes_per_s = static_cast<double>(stepmodel::parameter_bytes(m)) * 1000.0;
  m.hop_latency_us = 5.0;
  return c;
}

// The run as rank r sees it in true time (ns since the run began).
std::int64_t true_ns(const sim::SimulatedRun& run, int rank, std::int64_t raw) {
  const sim::TrueClock& c = run.true_clocks[static_cast<std::size_t>(rank)];
  return std::llround(static_cast<double>(raw - sim::kRawClockEpochNs - c.offset_ns) /
                      (1.0 + c.drift_ppm * 1e-6));
}

double aligned(const stepclock::ClockModel& m, std::int64_t raw) {
  return static_cast<double>(raw) + m.offset_ns +
         m.drift_ppm * 1e-6 * static_cast<double>(raw - m.ref_ns);
}

// Scans only the events of that rank's step: the reference test looks up thousands of events
// in runs of hundreds of thousands.
EventRecord find(const sim::SimulatedRun& run, int rank, int step, std::string_view name,
                 int layer = -1, int seq = -1, int microbatch = -1) {
  const std::size_t first = run.first_event(rank, step);
  const std::size_t end =
      std::min(first + static_cast<std::size_t>(run.events_per_rank_step), run.event_count());
  for (std::size_t i = first; i < end; ++i) {
    const EventRecord e = run.event(i);
    if (e.rank == rank && e.step == step && run.names[e.name] == name && e.layer == layer &&
        e.seq == seq && (microbatch < 0 || e.microbatch == microbatch)) {
      return e;
    }
  }
  FAIL("no event " << name << " on rank " << rank << " step " << step);
  return run.event(0);
}

double duration_ms(const sim::SimulatedRun& run, const EventRecord& e) {
  return static_cast<double>(true_ns(run, e.rank, e.end_ns) - true_ns(run, e.rank, e.begin_ns)) /
         kMs;
}

double step_ms(const sim::SimulatedRun& run, int step) {
  const std::int64_t previous = step == 0 ? 0 : run.step_end_ns[static_cast<std::size_t>(step - 1)];
  return static_cast<double>(run.step_end_ns[static_cast<std::size_t>(step)] - previous) / kMs;
}

stepmodel::DelayInjection delay(int rank, const char* phase, int layer, double ms) {
  return {.rank = rank, .phase = phase, .layer = layer, .ms = ms};
}

}  // namespace

TEST_CASE("events follow the step schedule: names, identifiers and one step event") {
  stepmodel::RunConfig c = exact_config();
  c.model.layers = 3;
  c.model.microbatches = 2;
  c.model.buckets = 2;
  const sim::SimulatedRun run = sim::simulate(c);
  const auto schedule = stepmodel::step_schedule(c.model);
  const int steps = c.warmup_steps + c.steps;
  REQUIRE(run.events_per_rank_step == static_cast<int>(schedule.size()) + 1);
  REQUIRE(run.event_count() == static_cast<std::size_t>(c.ranks * steps) * (schedule.size() + 1));
  std::size_t i = 0;
  for (int r = 0; r < c.ranks; ++r) {
    for (int s = 0; s < steps; ++s) {
      const EventRecord& step_event = run.event(i++);
      CHECK(run.names[step_event.name] == "step");
      CHECK(step_event.kind == EventKind::kStep);
      CHECK(step_event.rank == r);
      CHECK(step_event.step == s);
      for (const stepmodel::Phase& p : schedule) {
        const EventRecord& e = run.event(i++);
        CHECK(run.names[e.name] == p.name);
        CHECK(e.rank == r);
        CHECK(e.step == s);
        CHECK(e.microbatch == p.microbatch);
        CHECK(e.layer == p.layer);
        CHECK(e.seq == p.seq);
        CHECK(e.kind == (p.kind == stepmodel::PhaseKind::kCollective ? EventKind::kCollective
                                                                     : EventKind::kCompute));
        CHECK(e.bytes == (p.kind == stepmodel::PhaseKind::kCollective ? p.bytes : 0));
        CHECK(e.end_ns >= e.begin_ns);
      }
    }
  }
}

TEST_CASE("noiseless durations are the model's: GEMM, optimizer, ring all-reduce") {
  const stepmodel::RunConfig c = exact_config();
  const sim::SimulatedRun run = sim::simulate(c);
  const double allreduce_ms = 1.0 + 2.0 * 5e-3;  // bytes/link + 2(n-1) hops of 5 us
  CHECK(sim::ring_allreduce_ns(c.model, 2, stepmodel::parameter_bytes(c.model)) / kMs ==
        doctest::Approx(allreduce_ms));
  CHECK(sim::ring_allreduce_ns(c.model, 1, 1 << 20) == 0.0);
  for (int r = 0; r < 2; ++r) {
    CHECK(duration_ms(run, find(run, r, 1, "gemm.fwd", 0, -1, 0)) == doctest::Approx(1.0));
    CHECK(duration_ms(run, find(run, r, 1, "gemm.bwd.wgrad", 1, -1, 0)) == doctest::Approx(1.0));
    CHECK(duration_ms(run, find(run, r, 1, "optimizer")) == doctest::Approx(2.0));
    CHECK(duration_ms(run, find(run, r, 1, "allreduce", -1, 0)) ==
          doctest::Approx(allreduce_ms).epsilon(1e-4));
  }
  // 6 GEMMs + all-reduce + optimizer, identical every step.
  for (int s = 0; s < 4; ++s) CHECK(step_ms(run, s) == doctest::Approx(8.0 + allreduce_ms));
}

TEST_CASE("a GEMM delay lengthens that GEMM; the all-reduce completes after the last arrival") {
  stepmodel::RunConfig c = exact_config();
  c.inject.delays.push_back(delay(1, "gemm.fwd", 0, 3.0));
  c.inject.delays.back().step_first = 2;
  c.inject.delays.back().step_last = 2;
  const sim::SimulatedRun run = sim::simulate(c);
  CHECK(duration_ms(run, find(run, 1, 2, "gemm.fwd", 0, -1, 0)) == doctest::Approx(4.0));
  CHECK(duration_ms(run, find(run, 1, 2, "gemm.fwd", 1, -1, 0)) == doctest::Approx(1.0));
  CHECK(duration_ms(run, find(run, 1, 1, "gemm.fwd", 0, -1, 0)) == doctest::Approx(1.0));
  CHECK(duration_ms(run, find(run, 0, 2, "gemm.fwd", 0, -1, 0)) == doctest::Approx(1.0));
  // Rank 0 arrives on time and waits; both complete together, 3 ms later than in step 1.
  const EventRecord& early = find(run, 0, 2, "allreduce", -1, 0);
  const EventRecord& late = find(run, 1, 2, "allreduce", -1, 0);
  CHECK(static_cast<double>(true_ns(run, 1, late.begin_ns) - true_ns(run, 0, early.begin_ns)) /
            kMs ==
        doctest::Approx(3.0).epsilon(1e-3));
  CHECK(std::abs(true_ns(run, 0, early.end_ns) - true_ns(run, 1, late.end_ns)) <= 1);
  CHECK(duration_ms(run, early) == doctest::Approx(3.0 + 1.01).epsilon(1e-3));
  CHECK(step_ms(run, 2) - step_ms(run, 1) == doctest::Approx(3.0).epsilon(1e-3));
  CHECK(step_ms(run, 3) == doctest::Approx(step_ms(run, 1)));
}

TEST_CASE("an all-reduce delay is a late arrival on the selected bucket") {
  stepmodel::RunConfig c = exact_config();
  c.model.buckets = 2;
  c.inject.delays.push_back(delay(0, "allreduce", 1, 2.0));
  const sim::SimulatedRun run = sim::simulate(c);
  for (int s = 0; s < 4; ++s) {
    const EventRecord& bucket0 = find(run, 0, s, "allreduce", -1, 0);
    const EventRecord& bucket1 = find(run, 0, s, "allreduce", -1, 1);
    // The delay is a gap before the call, not part of the collective event.
    CHECK(true_ns(run, 0, bucket1.begin_ns) - true_ns(run, 0, bucket0.end_ns) == 2'000'000);
    const EventRecord& peer = find(run, 1, s, "allreduce", -1, 1);
    CHECK(duration_ms(run, peer) > 2.0);
  }
}

TEST_CASE("a slowdown multiplies one rank's GEMMs; compute_scale multiplies everyone's") {
  stepmodel::RunConfig c = exact_config();
  c.inject.slowdowns.push_back({1, 2.0});
  c.model.compute_scale = 1.5;
  const sim::SimulatedRun run = sim::simulate(c);
  CHECK(duration_ms(run, find(run, 0, 1, "gemm.bwd.dgrad", 0, -1, 0)) == doctest::Approx(1.5));
  CHECK(duration_ms(run, find(run, 1, 1, "gemm.bwd.dgrad", 0, -1, 0)) == doctest::Approx(3.0));
  CHECK(duration_ms(run, find(run, 1, 1, "optimizer")) == doctest::Approx(2.0));
}

TEST_CASE("clock models map every rank onto rank 0 within the stated uncertainty") {
  stepmodel::RunConfig c = exact_config();
  c.ranks = 16;
  c.inject.clock_skews.push_back({5, 500.0, 100.0});
  c.inject.clock_skews.push_back({9, -250.0, -40.0});
  const sim::SimulatedRun run = sim::simulate(c);
  REQUIRE(run.clock_models.size() == 16);
  CHECK(run.clock_models[0].offset_ns == 0.0);
  CHECK(run.clock_models[0].drift_ppm == 0.0);
  CHECK(run.clock_models[0].uncertainty_ns == 0.0);
  CHECK(run.clock_models[5].offset_ns == doctest::Approx(-500e6).epsilon(1e-2));
  // Raw clocks really are skewed: rank 5 reads half a second ahead.
  const EventRecord& ref = find(run, 0, 3, "allreduce", -1, 0);
  const EventRecord& skewed = find(run, 5, 3, "allreduce", -1, 0);
  CHECK(skewed.end_ns - ref.end_ns > 499'000'000);
  for (int r = 1; r < 16; ++r) {
    const stepclock::ClockModel& m = run.clock_models[static_cast<std::size_t>(r)];
    CHECK(m.uncertainty_ns > 0);
    CHECK(m.uncertainty_ns < 20'000);
    CHECK(m.exchanges >= 10);
    CHECK(m.host == "sim");
    for (int s = 0; s < 4; ++s) {
      // An all-reduce completes at the same true instant everywhere.
      const double mine = aligned(m, find(run, r, s, "allreduce", -1, 0).end_ns);
      const double rank0 = static_cast<double>(find(run, 0, s, "allreduce", -1, 0).end_ns);
      CHECK(std::abs(mine - rank0) <= m.uncertainty_ns);
    }
  }
}

TEST_CASE("a fixed seed gives identical events; another seed gives other noise") {
  stepmodel::RunConfig c = exact_config();
  c.ranks = 8;
  c.model.noise_cv = 0.05;
  c.model.run_cv = 0.02;
  c.model.spike_prob = 0.01;
  c.model.spike_ms = 5;
  const sim::SimulatedRun a = sim::simulate(c);
  const sim::SimulatedRun b = sim::simulate(c);
  auto same = [](const sim::SimulatedRun& x, const sim::SimulatedRun& y) {
    if (x.event_count() != y.event_count()) return false;
    for (std::size_t i = 0; i < x.event_count(); ++i) {
      const EventRecord e = x.event(i);
      const EventRecord f = y.event(i);
      if (e.begin_ns != f.begin_ns || e.end_ns != f.end_ns || e.name != f.name ||
          e.rank != f.rank || e.step != f.step || e.layer != f.layer || e.seq != f.seq) {
        return false;
      }
    }
    return true;
  };
  CHECK(same(a, b));
  c.seed = 8;
  const sim::SimulatedRun other = sim::simulate(c);
  CHECK_FALSE(same(a, other));
  CHECK(other.event_count() == a.event_count());
}

TEST_CASE("phase jitter is lognormal with the configured CV around the model's duration") {
  stepmodel::RunConfig c = exact_config();
  c.ranks = 64;
  c.steps = 40;
  c.model.noise_cv = 0.1;
  const sim::SimulatedRun run = sim::simulate(c);
  double sum = 0, sum2 = 0;
  int n = 0;
  for (const EventRecord& e : run.all_events()) {
    if (run.names[e.name] != "gemm.fwd") continue;
    const double ms = duration_ms(run, e);
    sum += ms;
    sum2 += ms * ms;
    ++n;
  }
  const double mean = sum / n;
  const double cv = std::sqrt(sum2 / n - mean * mean) / mean;
  CHECK(mean == doctest::Approx(1.0).epsilon(0.02));
  CHECK(cv == doctest::Approx(0.1).epsilon(0.15));
}

TEST_CASE("overlapped all-reduces run during backward and finish before the optimizer") {
  stepmodel::RunConfig c = exact_config();
  c.model.layers = 4;
  c.model.buckets = 2;
  const double blocking = step_ms(sim::simulate(c), 1);
  c.model.overlap = true;
  const sim::SimulatedRun run = sim::simulate(c);
  CHECK(step_ms(run, 1) < blocking);
  for (int r = 0; r < 2; ++r) {
    const EventRecord& bucket0 = find(run, r, 1, "allreduce", -1, 0);
    const EventRecord& bucket1 = find(run, r, 1, "allreduce", -1, 1);
    const EventRecord& wgrad = find(run, r, 1, "gemm.bwd.wgrad", 1, -1, 0);
    const EventRecord& optimizer = find(run, r, 1, "optimizer");
    CHECK(bucket0.begin_ns < wgrad.end_ns);  // in flight while layer 1's gradients compute
    CHECK(bucket1.begin_ns >= bucket0.begin_ns);
    CHECK(optimizer.begin_ns >= bucket1.end_ns);
    CHECK(bucket1.end_ns >= bucket0.end_ns);
  }
}

TEST_CASE("the first injected fault within the run is the one that fires") {
  stepmodel::RunConfig c = exact_config();
  CHECK_FALSE(sim::triggered_fault(c).has_value());
  c.inject.faults.push_back({1, 9, "abort"});  // beyond the 4 steps: never reached
  CHECK_FALSE(sim::triggered_fault(c).has_value());
  c.inject.faults.push_back({1, 3, "hang"});
  c.inject.faults.push_back({0, 2, "abort"});
  const auto fault = sim::triggered_fault(c);
  REQUIRE(fault.has_value());
  CHECK(fault->rank == 0);
  CHECK(fault->step == 2);
  CHECK(fault->kind == "abort");
}

TEST_CASE("the run file carries the contract's meta keys with deterministic timestamps") {
  const stepmodel::RunConfig c = exact_config();
  stepclock::RunFileContents contents =
      sim::to_run_file(sim::simulate(c), c, "{\"x\": 1}", {"culprit-sim --config a", "h"});
  std::map<std::string, std::string> meta(contents.meta.begin(), contents.meta.end());
  CHECK(meta["backend"] == "sim");
  CHECK(meta["source"] == "culprit-sim");
  CHECK(meta["ranks"] == "2");
  CHECK(meta["warmup_steps"] == "1");
  CHECK(meta["steps"] == "3");
  CHECK(meta["started_at"] == "2000-01-01T00:00:00Z");
  CHECK(meta["finished_at"] == "2000-01-01T00:00:01Z");
  // started_at at true time 0, which rank 0's raw clock reads as 1e12 ns
  CHECK(meta["unix_offset_ns"] == "946683800000000000");
  CHECK(std::stod(meta["model_flops_per_step"]) == stepmodel::model_flops_per_step(c.model));
  CHECK(meta["parameter_bytes"] == std::to_string(stepmodel::parameter_bytes(c.model)));
  CHECK(contents.config_json == "{\"x\": 1}");
  CHECK(sim::simulated_timestamp(86400 + 61) == "2000-01-02T00:01:01Z");

  auto dir = std::filesystem::temp_directory_path() / "culprit_unit_sim";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "run.db").string();
  stepclock::write_run_file(path, contents);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db,
                             "SELECT count(*), count(DISTINCT rank), sum(kind = 'step') "
                             "FROM events",
                             -1, &stmt, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  CHECK(sqlite3_column_int64(stmt, 0) == static_cast<long long>(contents.events.size()));
  CHECK(sqlite3_column_int64(stmt, 1) == 2);
  CHECK(sqlite3_column_int64(stmt, 2) == 8);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  std::filesystem::remove_all(dir);
}

namespace {

// Every table of a run file as text (packs as hex), in a fixed order.
std::string file_text(const std::string& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  std::string text;
  for (const char* sql :
       {"SELECT key || '=' || value FROM meta ORDER BY key",
        "SELECT rank || ' ' || key || '=' || value FROM provenance ORDER BY rank, key",
        "SELECT rank || ' ' || ref_ns || ' ' || offset_ns FROM clock_models ORDER BY rank",
        "SELECT id || ' ' || name FROM event_names ORDER BY id",
        "SELECT rank || ' ' || events || ' ' || hex(data) FROM event_packs ORDER BY rowid"}) {
    sqlite3_stmt* stmt = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      text += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      text += '\n';
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return text;
}

}  // namespace

TEST_CASE("the run file written a rank at a time is the one the whole contents give") {
  stepmodel::RunConfig c = exact_config();
  c.ranks = 5;
  c.model.noise_cv = 0.05;
  const sim::SimulatedRun run = sim::simulate(c);
  CHECK(run.times.size() == run.event_count());
  const sim::SimProvenance provenance{"culprit-sim --config a", "h"};
  auto dir = std::filesystem::temp_directory_path() / "culprit_unit_sim_stream";
  std::filesystem::create_directories(dir);
  const std::string whole = (dir / "whole.db").string(), streamed = (dir / "streamed.db").string();
  stepclock::write_run_file(whole, sim::to_run_file(run, c, "{}", provenance));
  sim::write_run_file(streamed, run, c, "{}", provenance);
  const std::string expected = file_text(whole);
  CHECK(expected.find("4 " + std::to_string(run.event_count() / 5) + " ") != std::string::npos);
  CHECK(file_text(streamed) == expected);
  std::filesystem::remove_all(dir);
}

// The median of run medians over repetitions, as an experiment measures a configuration.
double median_of_runs(stepmodel::RunConfig config, int repetitions, double* compute_share) {
  std::vector<double> medians;
  double share = 0;
  for (int rep = 0; rep < repetitions; ++rep) {
    config.seed = 1000 + static_cast<std::uint64_t>(rep);
    const sim::RunSummary summary = sim::summarize(sim::simulate(config), config);
    medians.push_back(summary.median_step_ms);
    share += summary.compute_time_share;
  }
  std::sort(medians.begin(), medians.end());
  *compute_share = share / repetitions;
  return 0.5 * (medians[medians.size() / 2 - 1] + medians[medians.size() / 2]);
}

TEST_CASE("reference scenario: 410 ms baseline, 485 ms with rank 63's long GEMM") {
  const std::string dir = CULPRIT_SIM_TEST_DATA;
  const auto baseline_config = stepmodel::load_run_config(dir + "/reference-64-baseline.json");
  const auto candidate_config = stepmodel::load_run_config(dir + "/reference-64-candidate.json");
  double baseline_share = 0;
  double candidate_share = 0;
  const double baseline_ms = median_of_runs(baseline_config, 8, &baseline_share);
  const double candidate_ms = median_of_runs(candidate_config, 8, &candidate_share);
  MESSAGE("baseline " << baseline_ms << " ms, compute share " << baseline_share);
  MESSAGE("candidate " << candidate_ms << " ms, compute share " << candidate_share);
  CHECK(baseline_ms == doctest::Approx(410).epsilon(0.015));
  CHECK(candidate_ms == doctest::Approx(485).epsilon(0.015));
  CHECK(candidate_ms - baseline_ms == doctest::Approx(75).epsilon(0.05));
  CHECK(candidate_share == doctest::Approx(0.81).epsilon(0.05));
  CHECK(baseline_share == doctest::Approx(0.95).epsilon(0.05));
  // Rank 63 is the last to enter the first all-reduce in every step of the candidate.
  const sim::SimulatedRun candidate_run = sim::simulate(candidate_config);
  const int steps = candidate_config.warmup_steps + candidate_config.steps;
  for (int s = 0; s < steps; ++s) {
    int last = -1;
    double latest = -1e300;
    for (int r = 0; r < candidate_config.ranks; ++r) {
      const EventRecord& e = find(candidate_run, r, s, "allreduce", -1, 0);
      const double t = aligned(candidate_run.clock_models[static_cast<std::size_t>(r)], e.begin_ns);
      if (t > latest) {
        latest = t;
        last = r;
      }
    }
    CHECK(last == 63);
  }
}

namespace {

// Two ranks stepping through a measured schedule (as `culprit reduce` writes it): region names
// of the user's job, a host gap, one all-reduce with a stated transfer time.
stepmodel::RunConfig measured_config() {
  stepmodel::RunConfig c = two_rank_sim(3);
  c.model.compute = "sleep";
  auto add = [&](const char* name, double ms, double gap_ms, bool collective) {
    stepmodel::SchedulePhase p;
    p.name = name;
    p.ms = ms;
    p.gap_ms = gap_ms;
    p.collective = collective;
    if (collective) {
      p.seq = 0;
      p.bytes = 1 << 20;
    }
    c.model.schedule.push_back(p);
  };
  add("layer0", 2.0, 0.0, false);
  add("layer2", 1.5, 0.25, false);
  add("allreduce", 0.75, 0.0, true);
  add("optimizer", 1.0, 0.0, false);
  return c;
}

}  // namespace

TEST_CASE("a measured schedule keeps its names, durations, gaps and transfer time") {
  const stepmodel::RunConfig c = measured_config();
  const sim::SimulatedRun run = sim::simulate(c);
  CHECK(std::find(run.names.begin(), run.names.end(), "layer2") != run.names.end());
  for (int r = 0; r < 2; ++r) {
    CHECK(duration_ms(run, find(run, r, 1, "layer0")) == doctest::Approx(2.0));
    CHECK(duration_ms(run, find(run, r, 1, "layer2")) == doctest::Approx(1.5));
    const EventRecord& l0 = find(run, r, 1, "layer0");
    const EventRecord& l2 = find(run, r, 1, "layer2");
    CHECK(true_ns(run, r, l2.begin_ns) - true_ns(run, r, l0.end_ns) == 250'000);
    CHECK(duration_ms(run, find(run, r, 1, "allreduce", -1, 0)) == doctest::Approx(0.75));
  }
  // gaps + compute + transfer: 2 + 0.25 + 1.5 + 0.75 + 1 ms.
  for (int s = 0; s < 4; ++s) CHECK(step_ms(run, s) == doctest::Approx(5.5));
}

TEST_CASE("a delay on a region name of a measured schedule, on one rank or on every rank") {
  stepmodel::RunConfig c = measured_config();
  c.inject.delays.push_back(delay(1, "layer2", -1, 3.0));
  sim::SimulatedRun run = sim::simulate(c);
  CHECK(duration_ms(run, find(run, 1, 2, "layer2")) == doctest::Approx(4.5));
  CHECK(duration_ms(run, find(run, 0, 2, "layer2")) == doctest::Approx(1.5));
  CHECK(step_ms(run, 2) == doctest::Approx(8.5));

  c.inject.delays.back().rank = stepmodel::kEveryRank;
  run = sim::simulate(c);
  for (int r = 0; r < 2; ++r)
    CHECK(duration_ms(run, find(run, r, 2, "layer2")) == doctest::Approx(4.5));
  CHECK(step_ms(run, 2) == doctest::Approx(8.5));
}
