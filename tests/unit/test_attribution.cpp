// Attribution on event sets with known answers: first divergence, exact reconciliation,
// delay-cost conservation, propagation along a chain of waits, what-if, clock-skew invariance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "analysis/synthetic_run.hpp"
#include "culprit/analysis/attribution.hpp"
#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/delay_costs.hpp"
#include "culprit/analysis/timeline.hpp"
#include "culprit/analysis/windows.hpp"
#include "culprit/storage/run_data.hpp"
#include "temp_store.hpp"

using namespace culprit;
using culprit::testing::Delay;
using culprit::testing::kMs;
using culprit::testing::SkewedClock;
using culprit::testing::synthesize;
using culprit::testing::SyntheticSpec;

namespace {

SyntheticSpec four_ranks_sleep() {
  return culprit::testing::sleep_spec(4, 6, 1, 4, 2, 2);
}

// The straggler most tests inject: rank 2's forward GEMM of layer 1, microbatch 0, +40 ms.
SyntheticSpec rank2_forward_straggler() {
  SyntheticSpec spec = four_ranks_sleep();
  spec.delays.push_back(Delay{2, "gemm.fwd", 1, 0, 40});
  return spec;
}

bool contains_text(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void check_reconciles(const analysis::RunAttribution& a) {
  for (const analysis::StepAttribution& s : a.steps) {
    double sum = s.decomposition.unclassified_ns;
    for (const analysis::Component& c : s.decomposition.components) sum += c.ns;
    CHECK(sum == doctest::Approx(s.decomposition.time_ns).epsilon(1e-12));
    // Nothing on these clean timelines escapes the walk.
    CHECK(std::abs(s.decomposition.unclassified_ns) < 1e3);
  }
}

}  // namespace

TEST_CASE("first divergence: a slow forward GEMM on rank 2 is the culprit, not the waiters") {
  SyntheticSpec spec = rank2_forward_straggler();
  const storage::RunData run = synthesize(spec);
  const analysis::RunAttribution a = analysis::attribute_run(run);
  REQUIRE(a.culprit.found);
  CHECK(a.culprit.rank == 2);
  CHECK(a.culprit.phase == "gemm.fwd");
  CHECK(a.culprit.layer == 1);
  CHECK(a.culprit.microbatch == 0);
  CHECK(a.culprit.collective == 0);
  CHECK(a.culprit.excess_ms == doctest::Approx(40).epsilon(0.01));
  CHECK(a.culprit.steps_blamed == 5);
  CHECK(a.symptom.waiting_ranks == 3);
  CHECK(a.symptom.median_wait_ms == doctest::Approx(40).epsilon(0.01));
  for (const analysis::StepAttribution& s : a.steps) {
    CHECK(s.last_arriver == 2);
    CHECK(s.collective == 0);
  }
  REQUIRE(!a.last_arriver_counts.empty());
  CHECK(a.last_arriver_counts[0] == std::pair{2, 5});
  check_reconciles(a);
  // The decomposition shows the excess as rank 2's straggler time, once per step.
  for (const analysis::StepAttribution& s : a.steps) {
    double straggler = 0;
    for (const analysis::Component& c : s.decomposition.components) {
      if (c.category == analysis::Category::kStraggler) {
        CHECK(c.rank == 2);
        CHECK(c.phase == "gemm.fwd");
        CHECK(c.layer == 1);
        straggler += c.ns;
      }
    }
    CHECK(straggler == doctest::Approx(40 * kMs).epsilon(1e-6));
  }
}

TEST_CASE("a clean run has no culprit, and still reconciles exactly") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.jitter_cv = 0.01;
  const storage::RunData run = synthesize(spec);
  const analysis::RunAttribution a = analysis::attribute_run(run);
  CHECK_FALSE(a.culprit.found);
  CHECK(a.what_if.rank == -1);
  check_reconciles(a);
}

TEST_CASE("exact reconciliation: typical + straggler + exposed comm + host gaps = step time") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.delays.push_back(Delay{1, "optimizer", -1, -1, 7});
  const storage::RunData run = synthesize(spec);
  const analysis::RunAttribution a = analysis::attribute_run(run);
  check_reconciles(a);
  const double gemm_ms = stepmodel::gemm_fwd_flops(spec.model) / spec.model.flops_per_s * 1e3;
  for (const analysis::StepAttribution& s : a.steps) {
    double typical_gemm = 0, exposed = 0, straggler = 0;
    for (const analysis::Component& c : s.decomposition.components) {
      if (c.category == analysis::Category::kTypical && c.phase.rfind("gemm", 0) == 0)
        typical_gemm += c.ns;
      if (c.category == analysis::Category::kExposedComm) exposed += c.ns;
      if (c.category == analysis::Category::kStraggler) straggler += c.ns;
    }
    // 4 layers x 2 microbatches x 3 GEMMs on the critical path; two blocking all-reduces.
    CHECK(typical_gemm == doctest::Approx(24 * gemm_ms * kMs).epsilon(1e-6));
    CHECK(exposed == doctest::Approx(2 * spec.transfer_ms * kMs).epsilon(1e-6));
    CHECK(straggler == doctest::Approx(7 * kMs).epsilon(1e-6));
    CHECK(s.decomposition.culprit.phase == "optimizer");
    CHECK(s.decomposition.culprit.rank == 1);
    CHECK(s.decomposition.last_finisher == 1);
  }
}

TEST_CASE("delay costs: all waiting time is charged, to the phase that caused it") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.delays.push_back(Delay{2, "gemm.bwd.wgrad", 3, 1, 25});
  const storage::RunData run = synthesize(spec);
  const analysis::RunAttribution a = analysis::attribute_run(run);
  CHECK(a.costs.total_wait_ns > 0);
  CHECK(a.costs.conservation_error_ns() ==
        doctest::Approx(0).epsilon(1e-9).scale(a.costs.total_wait_ns));
  const auto top = a.costs.by_rank_phase_layer();
  REQUIRE(!top.empty());
  CHECK(top[0].rank == 2);
  CHECK(top[0].phase == "gemm.bwd.wgrad");
  CHECK(top[0].layer == 3);
  CHECK(top[0].cost_ns > 0.99 * a.costs.total_wait_ns);
  CHECK(a.culprit.phase == "gemm.bwd.wgrad");
}

TEST_CASE("delay costs flow back along a two-hop chain of waits (overlapped buckets)") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.model.overlap = true;
  spec.model.buckets = 3;  // bucket 2 <- bucket 1 <- bucket 0 <- the slow GEMM
  spec.delays.push_back(Delay{3, "gemm.fwd", 0, 1, 30});
  const storage::RunData run = synthesize(spec);
  const analysis::Timeline t = analysis::build_timeline(run);
  const auto collectives = analysis::time_collectives(t);
  const auto stats = analysis::phase_stats(t, collectives);
  const auto arrivers = analysis::critical_arrivers(t, collectives, stats);
  // Pick the last bucket of a steady step: its own window holds no divergence.
  std::size_t last_bucket = 0;
  for (std::size_t k = 0; k < collectives.size(); ++k) {
    if (collectives[k].step == 3 && collectives[k].seq == 2) last_bucket = k;
  }
  REQUIRE(collectives[last_bucket].last_arriver == 3);
  REQUIRE(collectives[last_bucket].total_wait_ns > 3 * 25 * kMs);
  CHECK(analysis::divergent_excess_ns(t, stats, last_bucket,
                                      analysis::arrival_window(t, last_bucket, 3)) == 0);
  std::vector<bool> only(collectives.size(), false);
  only[last_bucket] = true;
  const auto costs = analysis::delay_costs(t, collectives, stats, arrivers, only);
  CHECK(costs.conservation_error_ns() == doctest::Approx(0).scale(costs.total_wait_ns));
  REQUIRE(!costs.costs.empty());
  CHECK(costs.costs[0].rank == 3);
  CHECK(costs.costs[0].phase == "gemm.fwd");
  CHECK(costs.costs[0].layer == 0);
  CHECK(costs.costs[0].microbatch == 1);
  CHECK(costs.costs[0].step == 3);
  CHECK(costs.costs[0].cost_ns > 0.95 * costs.total_wait_ns);
}

TEST_CASE("a late call of an all-reduce is blamed on the all-reduce of that bucket") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.delays.push_back(Delay{0, "allreduce", 1, -1, 12});
  const analysis::RunAttribution a = analysis::attribute_run(synthesize(spec));
  REQUIRE(a.culprit.found);
  CHECK(a.culprit.rank == 0);
  CHECK(a.culprit.phase == "allreduce");
  CHECK(a.culprit.layer == 1);
  CHECK(a.culprit.excess_ms == doctest::Approx(12).epsilon(0.01));
  check_reconciles(a);
  REQUIRE(a.what_if.complete);
  CHECK(a.what_if.saved_ms() == doctest::Approx(12).epsilon(0.02));
}

TEST_CASE("what-if: the step time had the blamed rank's phases taken the peer median") {
  SyntheticSpec spec = rank2_forward_straggler();
  const analysis::RunAttribution a = analysis::attribute_run(synthesize(spec));
  REQUIRE(a.what_if.complete);
  CHECK(a.what_if.rank == 2);
  CHECK(a.what_if.saved_ms() == doctest::Approx(40).epsilon(0.01));
  for (const auto& s : a.steps) CHECK(s.whatif_ms < s.decomposition.time_ns / 1e6 - 39);
}

// DDP's step as a measured schedule: the gradient all-reduce is issued inside backward without
// waiting, backward goes on (DDP's bookkeeping after the last bucket), then the rank idles, no
// phase open, until the all-reduce completes and the optimizer starts.
SyntheticSpec ddp_like_spec() {
  SyntheticSpec spec = culprit::testing::sleep_spec(4, 8, 1, 1, 1);
  auto phase = [](std::string name, double ms, bool collective = false) {
    stepmodel::SchedulePhase p;
    p.name = std::move(name);
    p.ms = ms;
    p.collective = collective;
    return p;
  };
  stepmodel::SchedulePhase allreduce = phase("allreduce", 1.0, true);
  allreduce.seq = 0;
  allreduce.bytes = 1 << 20;
  allreduce.async = true;
  stepmodel::SchedulePhase optimizer = phase("optimizer", 2.0);
  optimizer.waits = true;
  spec.model.schedule = {phase("gemm.fwd", 5.0), phase("gemm.bwd.dgrad", 5.0), allreduce,
                         phase("gemm.bwd.wgrad", 0.5), optimizer};
  return spec;
}

TEST_CASE("what-if: a peer idle until an asynchronous collective completes was waiting for it") {
  // The peers' wait for the straggler lies in that idle gap, in no call: the replay must give it
  // back (it saved 0 when only a rank blocked inside the collective's own call could resume at
  // its completion).
  SyntheticSpec spec = ddp_like_spec();
  spec.delays.push_back(Delay{2, "gemm.fwd", -1, -1, 30});
  const analysis::RunAttribution a = analysis::attribute_run(synthesize(spec));
  REQUIRE(a.culprit.found);
  CHECK(a.culprit.rank == 2);
  CHECK(a.culprit.phase == "gemm.fwd");
  REQUIRE(a.what_if.complete);
  CHECK(a.what_if.saved_ms() == doctest::Approx(30).epsilon(0.02));
}

TEST_CASE("what-if: an idle peer woke at the last arrival when its recorded completion is later") {
  // gloo's execution event can end after the main thread's wait returned (real torch DDP traces,
  // `importers.generated_torch`): the peers resume before their completion is recorded, so what
  // ended their idle wait is the straggler's arrival. The same DDP-shaped run, every completion
  // recorded 0.5 ms late on the peers, the straggler finishing its steps last.
  SyntheticSpec spec = ddp_like_spec();
  spec.delays.push_back(Delay{2, "gemm.fwd", -1, -1, 30});
  spec.delays.push_back(Delay{2, "optimizer", -1, -1, 0.6});
  storage::RunData run = synthesize(spec);
  for (storage::Event& e : run.events) {
    if (e.kind == storage::EventKind::kCollective && e.rank != 2) e.end_ns += 500'000;
  }
  const analysis::RunAttribution a = analysis::attribute_run(run);
  REQUIRE(a.culprit.found);
  CHECK(a.culprit.rank == 2);
  REQUIRE(a.what_if.complete);
  CHECK(a.what_if.saved_ms() == doctest::Approx(30).epsilon(0.03));
}

TEST_CASE("attribution is unchanged under a +-500 ms clock offset with 100 ppm drift") {
  SyntheticSpec spec = rank2_forward_straggler();
  const analysis::RunAttribution plain = analysis::attribute_run(synthesize(spec));
  spec.clocks.push_back(SkewedClock{1, 500, 100, 0.5, 1});
  spec.clocks.push_back(SkewedClock{3, -500, -100, -0.5, 1});
  const analysis::RunAttribution skewed = analysis::attribute_run(synthesize(spec));
  REQUIRE(skewed.culprit.found);
  CHECK(skewed.culprit.rank == plain.culprit.rank);
  CHECK(skewed.culprit.phase == plain.culprit.phase);
  CHECK(skewed.culprit.layer == plain.culprit.layer);
  CHECK(skewed.culprit.excess_ms == doctest::Approx(plain.culprit.excess_ms).epsilon(0.01));
  CHECK(skewed.median_step_ms == doctest::Approx(plain.median_step_ms).epsilon(1e-3));
  check_reconciles(skewed);
}

TEST_CASE("efficiency ratios carry their numerator and denominator") {
  SyntheticSpec spec = four_ranks_sleep();
  analysis::AttributionOptions options;
  options.peak_flops_per_device = 1e11;
  const analysis::RunAttribution a = analysis::attribute_run(synthesize(spec), options);
  const auto& e = a.efficiency;
  REQUIRE(e.gemm_rate.available());
  CHECK(e.gemm_rate.value == doctest::Approx(spec.model.flops_per_s).epsilon(1e-3));
  REQUIRE(e.mfu.available());
  CHECK(e.mfu.value == doctest::Approx(e.mfu.numerator / e.mfu.denominator));
  CHECK(e.mfu.value > 0);
  CHECK(e.mfu.value < 0.2);  // the GEMMs alone run at 20 % of peak
  REQUIRE(e.algbw.available());
  CHECK(e.busbw.value == doctest::Approx(e.algbw.value * 2 * 3 / 4.0));
  CHECK(e.exposed_comm.value > 0);
  CHECK(e.visual_overlap.value == doctest::Approx(0).epsilon(1e-9));  // blocking all-reduces
  analysis::AttributionOptions unknown;
  CHECK_FALSE(analysis::attribute_run(synthesize(spec), unknown).efficiency.mfu.available());
}

TEST_CASE("sampled activity counts samples in which a phase runs") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.steps = 40;
  const analysis::RunAttribution a =
      analysis::attribute_run(synthesize(spec), analysis::AttributionOptions{{}, 0, 0.01, 0.5});
  CHECK(a.activity.samples > 10);
  CHECK(a.activity.busy_share > 0.8);
  CHECK(a.activity.sampled_share == doctest::Approx(a.activity.busy_share).epsilon(0.2));
}

TEST_CASE("small worlds: a straggler in every forward GEMM is judged on noise without it") {
  // At 2 ranks half the pooled deviations belong to the straggler (its peer deviates by the
  // same amount the other way); at 3 ranks two thirds. Noise is estimated without the judged
  // rank's deviations from its peers: from step-to-step variation (2 ranks) or among the other
  // ranks (3).
  for (int ranks : {2, 3}) {
    CAPTURE(ranks);
    SyntheticSpec spec = four_ranks_sleep();
    spec.ranks = ranks;
    spec.steps = 8;
    spec.jitter_cv = 0.03;
    spec.delays.push_back(Delay{ranks - 1, "gemm.fwd", -1, -1, 3});
    const analysis::RunAttribution a = analysis::attribute_run(synthesize(spec));
    REQUIRE(a.culprit.found);
    CHECK(a.culprit.rank == ranks - 1);
    CHECK(a.culprit.phase == "gemm.fwd");
    CHECK(a.culprit.excess_ms == doctest::Approx(3).epsilon(0.2));
    CHECK(a.noise_note.empty());
    check_reconciles(a);
    spec.delays.clear();
    CHECK_FALSE(analysis::attribute_run(synthesize(spec)).culprit.found);
  }
}

TEST_CASE("two ranks with too few steady steps: the noise cannot be estimated, and it says so") {
  SyntheticSpec spec = four_ranks_sleep();
  spec.ranks = 2;
  spec.steps = 3;  // 2 steady steps
  spec.jitter_cv = 0.03;
  spec.delays.push_back(Delay{1, "gemm.fwd", -1, -1, 3});
  const analysis::RunAttribution a = analysis::attribute_run(synthesize(spec));
  CHECK(contains_text(a.noise_note, "2 ranks and 2 steady steps"));
  CHECK(contains_text(a.noise_note, "run more steps"));
}

namespace {

// Rank 2 is 8 ms slow in gemm.fwd, in layer (step mod 3), of 4 ranks, 7 steps (1 warm-up) and 3
// layers: no single layer is the first divergence in half the steady steps, but the (rank, phase)
// is in all of them. With `optimizer`, each rank runs an optimizer after the all-reduce; with
// `slow_optimizer` too, rank 2's is 3 ms slow in steps 1 and 4 (a third of them, as often as its
// gemm.fwd).
analysis::RunAttribution moving_layer_delay(bool optimizer, bool slow_optimizer) {
  constexpr int kRanks = 4, kSteps = 7, kLayers = 3;
  culprit::testing::RunBuilder b(kRanks, 1);
  for (int s = 0; s < kSteps; ++s) {
    const double start = s * 100.0;
    std::vector<double> ready(kRanks);
    for (int r = 0; r < kRanks; ++r) {
      double t = start;
      for (int l = 0; l < kLayers; ++l) {
        const double jitter = 0.02 * ((r * 7 + s * 3 + l) % 5);  // deterministic, small
        const double slow = (r == 2 && l == s % kLayers) ? 8.0 : 0.0;
        b.phase(r, s, 0, l, "gemm.fwd", t, t + 10.0 + jitter + slow);
        t += 10.0 + jitter + slow;
      }
      ready[static_cast<std::size_t>(r)] = t;
    }
    const double done = *std::max_element(ready.begin(), ready.end()) + 0.2;
    for (int r = 0; r < kRanks; ++r) {
      b.collective(r, s, 0, ready[static_cast<std::size_t>(r)], done);
      const double late = slow_optimizer && r == 2 && s % 3 == 1 ? 3.0 : 0.0;
      if (optimizer) b.phase(r, s, 0, -1, "optimizer", done, done + 1.0 + 0.01 * r + late);
      b.step(r, s, start, done + (optimizer ? 5.0 : 0.0));
    }
  }
  return analysis::attribute_run(b.build());
}

}  // namespace

TEST_CASE("a delay that is first seen in a different layer each step is blamed on every layer") {
  const analysis::RunAttribution a = moving_layer_delay(false, false);
  REQUIRE(a.culprit.found);
  CHECK(a.culprit.rank == 2);
  CHECK(a.culprit.phase == "gemm.fwd");
  CHECK(a.culprit.layer == -1);
  CHECK(a.culprit.steps_blamed == 6);
  CHECK(a.culprit.excess_ms == doctest::Approx(8).epsilon(0.05));
  CHECK(a.symptom.waiting_ranks == 3);
  CHECK(a.culprit.is_code());
}

TEST_CASE("real: a control whose rank was slow now and then in every phase is the environment") {
  // tests/data/analysis/busy-core-control-run6.sqlite, real: run 6 of the store `culprit
  // validate tests/data/analysis/small-world-mpirun-2.toml` wrote in
  // integration.analysis.small_world_mpirun_busy_core (2 ranks of culprit-step under mpirun, bound
  // to the 2 cores, a CPU hog on core 0) during a CI rehearsal on a clean clone at 03a863b
  // (2026-12-07), that run alone (`DELETE FROM runs WHERE id <> 6`, VACUUM at page size 1024). A
  // control: rank 1 was first divergence in gemm.fwd in 10 of 16 steps, a different layer each
  // time, with small measured CPU waits; 19 of its 128 gemm.fwd instances diverged and 39 of its
  // 272 others. Before the rule it was blamed as code (the test failed).
  const culprit::testing::TempStore store("busy_core_control");
  std::filesystem::copy_file(CULPRIT_TEST_DATA "/analysis/busy-core-control-run6.sqlite",
                             store.path);
  const auto db = storage::open_store(store.path);
  const analysis::RunAttribution a = analysis::attribute_run(storage::load_run(*db, 6));
  REQUIRE(a.culprit.found);
  CHECK(a.culprit.rank == 1);
  CHECK(a.culprit.phase == "gemm.fwd");
  CHECK(a.culprit.layer == -1);
  CHECK(a.culprit.steps_blamed == 10);
  CHECK_FALSE(a.culprit.is_code());
  CHECK(contains_text(a.culprit.environment,
                      "rank 1 diverged in 19 of its 128 gemm.fwd instances (15 %), a different "
                      "layer each step, and in its other phases too (39 of 272, 14 %)"));
}

TEST_CASE("a delay in one layer a step stays the code while the rank's other phases are quiet") {
  // A third of rank 2's gemm.fwd instances diverge. Its optimizer as quiet as its peers': the
  // pooled culprit stands. Its optimizer slow as often: the rank is slow in every phase alike,
  // the environment.
  const analysis::RunAttribution quiet = moving_layer_delay(true, false);
  REQUIRE(quiet.culprit.found);
  CHECK(quiet.culprit.layer == -1);
  CHECK(quiet.culprit.is_code());
  const analysis::RunAttribution noisy = moving_layer_delay(true, true);
  REQUIRE(noisy.culprit.found);
  CHECK(noisy.culprit.layer == -1);
  CHECK(contains_text(noisy.culprit.environment,
                      "rank 2 diverged in 6 of its 18 gemm.fwd instances (33 %), a different "
                      "layer each step, and in its other phases too (2 of 6, 33 %)"));
}

TEST_CASE("a rank that waited for a CPU as long as it cost is the environment, not the code") {
  SyntheticSpec spec = rank2_forward_straggler();
  storage::RunData run = synthesize(spec);
  REQUIRE(analysis::attribute_run(run).culprit.is_code());
  // [rank][step] waits for a CPU: rank 2 waited `rank2_ms` in every step, its peers 0.1 ms (while
  // they waited for rank 2 at the all-reduce: it counts for nothing).
  auto waits = [&](double rank2_ms) {
    std::vector<std::vector<double>> w(4, std::vector<double>(spec.steps, 0.1 * kMs));
    for (double& x : w[2]) x = rank2_ms * kMs;
    return w;
  };
  run.step_cpu_wait_ns = waits(40.1);  // about the 40 ms it cost each step
  const analysis::RunAttribution busy = analysis::attribute_run(run);
  REQUIRE(busy.culprit.found);
  CHECK(busy.culprit.rank == 2);
  CHECK_FALSE(busy.culprit.is_code());
  CHECK(contains_text(busy.culprit.environment, "rank 2 waited for a CPU 40.10 ms per step"));
  CHECK(contains_text(busy.culprit.environment, "another process shared its core"));
  // A wait of a fifth of the cost beside it: the code is still the cause.
  run.step_cpu_wait_ns = waits(8.0);
  CHECK(analysis::attribute_run(run).culprit.is_code());
  // Every rank waited alike outside the collectives (a busy machine, no rank singled out): the
  // code. The peers' 80 ms are 40 ms at the all-reduce, waiting for rank 2, and 40 ms besides.
  run.step_cpu_wait_ns = waits(40.0);
  for (std::size_t r = 0; r < run.step_cpu_wait_ns.size(); ++r)
    if (r != 2)
      for (double& x : run.step_cpu_wait_ns[r]) x = 80 * kMs;
  CHECK(analysis::attribute_run(run).culprit.is_code());
  // The peers waited for a CPU only while they waited at the all-reduce for rank 2 (spinning
  // there, they are runnable): that delays nobody and does not cancel rank 2's wait.
  for (std::size_t r = 0; r < run.step_cpu_wait_ns.size(); ++r)
    for (double& x : run.step_cpu_wait_ns[r]) x = 40 * kMs;
  const analysis::RunAttribution spun = analysis::attribute_run(run);
  CHECK_FALSE(spun.culprit.is_code());
  CHECK(contains_text(spun.culprit.environment, "beyond its idle waits at collectives"));
  // Not recorded (an import, an older run file): the code, as before.
  run.step_cpu_wait_ns.clear();
  CHECK(analysis::attribute_run(run).culprit.is_code());
}

TEST_CASE("where collectives' waits are measured, only the wait outside them is the environment") {
  // Rank 2 is 40 ms late by its code (a slow GEMM) in every step. Every rank waited 40 ms for a
  // CPU a step (4 sleeping ranks on 2 cores beside a busy one): the peers spinning at the
  // all-reduce for rank 2, rank 2 and all of them again in the transfer after it arrived.
  const SyntheticSpec spec = rank2_forward_straggler();
  storage::RunData run = synthesize(spec);
  auto per_rank = [&](double rank2_ms, double peers_ms) {
    std::vector<std::vector<double>> w(4, std::vector<double>(spec.steps, peers_ms * kMs));
    for (double& x : w[2]) x = rank2_ms * kMs;
    return w;
  };
  run.step_cpu_wait_ns = per_rank(40, 40);
  // Without the collectives' own waits, the peers' idle time at the all-reduce is taken out and
  // rank 2's transfer wait is left: the straggler is wrongly the machine.
  REQUIRE_FALSE(analysis::attribute_run(run).culprit.is_code());
  // Measured: all of rank 2's 40 ms were inside its collectives, none delayed its arrival.
  run.step_collective_wait_ns = per_rank(40, 40);
  const analysis::RunAttribution code = analysis::attribute_run(run);
  CHECK(code.culprit.is_code());
  CHECK(code.culprit.rank == 2);
  // Rank 2 waited 40 ms while computing, outside its collectives; its peers only inside theirs:
  // the machine, said in the measured form.
  run.step_collective_wait_ns = per_rank(0, 40);
  const analysis::RunAttribution machine = analysis::attribute_run(run);
  CHECK_FALSE(machine.culprit.is_code());
  CHECK(contains_text(machine.culprit.environment,
                      "rank 2 waited for a CPU 40.00 ms per step more than its peers (its own "
                      "wait 40.00 ms per step, counted outside its collectives)"));
}

TEST_CASE("idle waits at collectives: blocked before the last arrival, not computing, not after") {
  // Three ranks, one all-reduce that completes at 19.8 ms; rank 1 arrives last, at 15 ms.
  // Rank 0 computes 5 ms, then blocks: 10 ms idle before rank 1 arrives (its 4.8 ms after,
  // the transfer, are not idle: a rank parked then delays everyone). Rank 2 calls at 5 ms too
  // but computes "data" from 5 to 12 ms beside the pending all-reduce (a nested "copy" inside
  // counts once): 3 ms idle. Rank 1, the last arriver: none.
  culprit::testing::RunBuilder b(3);
  b.phase(0, 0, 0, 0, "layer0", 0, 5).collective(0, 0, 0, 5, 19.8).step(0, 0, 0, 20);
  b.phase(1, 0, 0, 0, "layer0", 0, 15).collective(1, 0, 0, 15, 19.8).step(1, 0, 0, 20);
  b.phase(2, 0, 0, 0, "layer0", 0, 5).collective(2, 0, 0, 5, 19.8);
  b.phase(2, 0, 0, -1, "data", 5, 12).phase(2, 0, 0, -1, "copy", 6, 8).step(2, 0, 0, 20);
  const storage::RunData run = b.build();
  const analysis::Timeline t = analysis::build_timeline(run);
  const std::vector<std::vector<double>> idle =
      analysis::idle_wait_ns_by_step(t, analysis::time_collectives(t));
  REQUIRE(idle.size() == 3);
  REQUIRE(idle[0].size() == 1);
  REQUIRE(idle[2].size() == 1);
  CHECK(idle[0][0] == doctest::Approx(10 * kMs));
  CHECK(idle[1].empty());
  CHECK(idle[2][0] == doctest::Approx(3 * kMs));
}

TEST_CASE("a partial import cannot decide at collectives whose members were not imported") {
  SyntheticSpec spec = rank2_forward_straggler();
  storage::RunData run = synthesize(spec);
  run.meta["partial"] = "1";
  SUBCASE("every collective misses members: no step blames, the run cannot decide") {
    std::string all;
    for (int step = 0; step < 10; ++step)
      for (int seq = 0; seq < 4; ++seq)
        all += std::to_string(step) + ":" + std::to_string(seq) + " ";
    run.meta["incomplete_collectives"] = all;
    const analysis::RunAttribution a = analysis::attribute_run(run);
    CHECK(a.partial);
    CHECK_FALSE(a.culprit.found);
    CHECK(contains_text(a.cannot_decide, "partial run"));
    CHECK(a.incomplete_collectives > 0);
    for (const analysis::StepAttribution& s : a.steps) {
      CHECK_FALSE(s.decomposition.culprit.found);
      if (s.last_arriver >= 0) CHECK_FALSE(s.last_arriver_decided);
      if (!s.decomposition.warmup) CHECK(contains_text(s.cannot_decide, "not imported"));
    }
  }
  SUBCASE("only collective #0 of step 3 misses members: that step cannot decide, the rest blame") {
    run.meta["incomplete_collectives"] = "3:0";
    const analysis::RunAttribution a = analysis::attribute_run(run);
    REQUIRE(a.culprit.found);
    CHECK(a.culprit.rank == 2);
    CHECK(a.culprit.steps_blamed == 4);
    CHECK(a.cannot_decide.empty());
    CHECK(a.incomplete_collectives == 1);
    for (const analysis::StepAttribution& s : a.steps) {
      if (s.decomposition.warmup) continue;
      const bool undecided = s.decomposition.step == 3;
      CHECK(s.decomposition.culprit.found == !undecided);
      CHECK(s.cannot_decide.empty() == !undecided);
      CHECK(s.last_arriver_decided == !undecided);
    }
  }
  SUBCASE("a partial run where no imported rank diverges cannot say nobody") {
    storage::RunData clean = synthesize(four_ranks_sleep());
    clean.meta["partial"] = "1";
    clean.meta["incomplete_collectives"] = "2:0";
    const analysis::RunAttribution a = analysis::attribute_run(clean);
    CHECK_FALSE(a.culprit.found);
    CHECK(contains_text(a.cannot_decide, "no imported rank diverges"));
  }
  SUBCASE("imported before the list existed: every collective is taken as incomplete") {
    const analysis::RunAttribution a = analysis::attribute_run(run);
    CHECK_FALSE(a.culprit.found);
    CHECK_FALSE(a.cannot_decide.empty());
  }
}

// Hand-written, the shape of a LAMMPS control on a loaded host (integration.pmpi.lammps_validate:
// rank 0 compute>MPI_Wait +0.20 ms in 31/60 steps while its peer waited 0.02 ms a step): the
// work before the all-reduce is split differently on the two ranks, so rank 0's "compute" is 1 ms
// longer than rank 1's and its "pre" 1 ms shorter; rank 0 arrives last by a hair in every step,
// and its peer waits 1 us for it: the divergence costs nothing.
TEST_CASE("a divergence that costs its steps nothing is not a cause") {
  // `early_ms`: how much shorter rank 0's "pre" is than its peer's (its "compute" is 1 ms longer).
  auto run_with = [](double early_ms) {
    culprit::testing::RunBuilder b(2);
    for (int step = 0; step < 12; ++step) {
      const double t0 = 20.0 * step;
      const double jitter = 0.002 * (step % 3);
      const double arrival0 = t0 + 11.001 - early_ms + jitter;
      const double done = std::max(arrival0, t0 + 10 + jitter) + 0.5;
      b.phase(0, step, 0, -1, "pre", t0, t0 + 5 - early_ms)
          .phase(0, step, 0, 0, "compute", t0 + 5 - early_ms, arrival0)
          .collective(0, step, 0, arrival0, done)
          .step(0, step, t0, done);
      b.phase(1, step, 0, -1, "pre", t0, t0 + 5)
          .phase(1, step, 0, 0, "compute", t0 + 5, t0 + 10 + jitter)
          .collective(1, step, 0, t0 + 10 + jitter, done)
          .step(1, step, t0, done);
    }
    return analysis::attribute_run(b.build());
  };
  const analysis::RunAttribution costless = run_with(1.0);
  CHECK_FALSE(costless.culprit.found);
  CHECK(contains_text(costless.costless_note,
                      "rank 0 compute layer 0 diverged by +1.00 ms in 12/12 steps"));
  CHECK(contains_text(costless.costless_note, "the ranks waited for it 0.00 ms a step"));
  CHECK(costless.what_if.rank == -1);
  // The same divergence that delays the all-reduce (rank 0's "pre" as long as its peer's): the
  // cause; its peer waits 1 ms for it, and that is what the what-if saves.
  const analysis::RunAttribution costly = run_with(0.0);
  REQUIRE(costly.culprit.found);
  CHECK(costly.culprit.rank == 0);
  CHECK(costly.culprit.phase == "compute");
  CHECK(costly.costless_note.empty());
  CHECK(costly.what_if.saved_ms() == doctest::Approx(1.0).epsilon(0.01));
}
