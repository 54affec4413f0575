// Reduction (docs/methodology.md, "Reduction"): the calibration recovers a known step, and the
// causes of a known injected straggler come back as the delay that was injected.

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "analysis/synthetic_run.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/reduce/calibration.hpp"
#include "culprit/reduce/model_level.hpp"
#include "culprit/reduce/reduced_manifest.hpp"
#include "culprit/reduce/reduction.hpp"
#include "culprit/report/reduce_report.hpp"
#include "manifest_round_trip.hpp"

using culprit::reduce::calibrate;
using culprit::reduce::reduce_runs;
using culprit::testing::synthesize;
using culprit::testing::SyntheticSpec;

namespace {

SyntheticSpec spec() {
  SyntheticSpec s;
  s.ranks = 4;
  s.steps = 12;
  s.warmup_steps = 2;
  s.model.layers = 2;
  s.model.microbatches = 1;
  s.model.buckets = 1;
  s.model.tokens = 64;
  s.model.hidden = 128;
  s.model.flops_per_s = stepmodel::gemm_fwd_flops(s.model) * 1000.0;  // 1 ms per GEMM
  s.transfer_ms = 0.2;
  s.gap_us = 2;
  return s;
}

// Run 1 against run 7, whose rank 1 runs gemm.fwd of layer 0 3 ms longer in every step, reduced.
culprit::reduce::Reduction reduced_straggler() {
  SyntheticSpec s = spec();
  s.jitter_cv = 0.01;
  auto baseline = synthesize(s);
  baseline.run_id = 1;
  s.seed = 2;
  s.delays.push_back({1, "gemm.fwd", 0, -1, 3.0});
  auto candidate = synthesize(s);
  candidate.run_id = 7;
  return reduce_runs(baseline, candidate, {}, {});
}

}  // namespace

TEST_CASE("calibration recovers the step: order, durations, gaps, transfer, payload") {
  const auto run = synthesize(spec());
  const auto c = calibrate(run);
  CHECK(c.ranks == 4);
  CHECK(c.steady_steps == 10);
  // 2 forward + 2x2 backward GEMMs, one all-reduce, the optimizer.
  REQUIRE(c.phases.size() == 8);
  CHECK(c.phases[0].phase.name == "gemm.fwd");
  CHECK(c.phases[0].phase.layer == 0);
  CHECK(c.phases[0].phase.ms == doctest::Approx(1.0));
  CHECK(c.phases[1].phase.gap_ms == doctest::Approx(0.002));
  CHECK(c.phases[0].samples == 40);
  const auto& ar = c.phases[6].phase;
  CHECK(ar.collective);
  CHECK(ar.name == "allreduce");
  CHECK(ar.seq == 0);
  CHECK(ar.ms == doctest::Approx(0.2));
  CHECK(ar.bytes == stepmodel::buckets(spec().model)[0].bytes);
  CHECK_FALSE(ar.async);
  CHECK(c.phases[7].phase.name == "optimizer");
  CHECK(c.noise_cv == doctest::Approx(0.0));
}

TEST_CASE("too few steady steps are refused with the count and what to do") {
  SyntheticSpec s = spec();
  s.steps = 5;
  CHECK_THROWS_WITH_AS(calibrate(synthesize(s)), doctest::Contains("3 steady step(s)"),
                       culprit::UsageError);
}

TEST_CASE("an injected straggler comes back as its delay; a control gives nothing to reduce") {
  SyntheticSpec s = spec();
  s.jitter_cv = 0.01;
  const auto baseline = synthesize(s);
  s.seed = 2;
  s.delays.push_back({1, "gemm.fwd", 0, -1, 3.0});
  auto candidate = synthesize(s);
  candidate.run_id = 7;
  culprit::reduce::ReductionOptions options;
  const auto r = reduce_runs(baseline, candidate, options, {});
  REQUIRE(r.causes.size() == 1);
  const auto& cause = r.causes.front();
  CHECK(cause.kind == "straggler");
  CHECK(cause.rank == 1);
  CHECK(cause.phase == "gemm.fwd");
  CHECK(cause.layer == 0);
  REQUIRE(cause.delays.size() == 1);
  CHECK(cause.delays[0].ms == doctest::Approx(3.0).epsilon(0.1));
  CHECK(cause.delays[0].step_first == -1);  // every step
  CHECK(r.original.delta_ms == doctest::Approx(3.0).epsilon(0.15));

  options.ranks = 1;  // scaled down: rank 1 moves to rank 0, and the move is noted
  const auto one = reduce_runs(baseline, candidate, options, {});
  CHECK(one.causes.front().rank == 0);
  REQUIRE_FALSE(one.notes.empty());
  CHECK(one.notes.front().find("rank 1 is beyond 1 ranks") != std::string::npos);

  SyntheticSpec quiet = spec();
  quiet.jitter_cv = 0.01;
  quiet.seed = 5;
  CHECK_THROWS_WITH_AS(reduce_runs(baseline, synthesize(quiet), {}, {}),
                       doctest::Contains("nothing to reduce"), culprit::UsageError);
}

TEST_CASE("the printed summary: the median change, the hiccup steps, each cause's delays") {
  culprit::reduce::Reduction r = reduced_straggler();
  REQUIRE(r.causes.size() == 1);
  REQUIRE(r.causes.front().delays.size() == 1);
  const double every_step_ms = r.causes.front().delays.front().ms;
  // Hand-set, as a hiccup would leave them: a delay in one step and one in a range of steps.
  auto& delays = r.causes.front().delays;
  delays.push_back(delays.front());
  delays.back().step_first = delays.back().step_last = 3;
  delays.back().ms = 30.47;
  delays.push_back(delays.front());
  delays.back().step_first = 4;
  delays.back().step_last = 6;
  r.excess_steps = {3};
  r.step_excess_ms = 29.263;
  const std::string text =
      culprit::report::reduce_summary_document(r, "r.toml", culprit::report::Format::kText);
  const std::string first_line = text.substr(0, text.find('\n'));
  CHECK(first_line == fmt::format("wrote r.toml: 4 ranks, {} phases per step, 1 cause(s) for a "
                                  "median step change of {:+.2f} ms (run 1 -> run 7)",
                                  r.baseline.phases.size(), r.original.delta_ms));
  CHECK(text.find("\n  hiccup step(s) 3: +29.26 ms over the candidate's median step, for the "
                  "causes' runs to reproduce in the same steps\n") != std::string::npos);
  CHECK(text.find(fmt::format(
            "\n  cause-1: straggler: rank 1 gemm.fwd layer 0 ({:+.2f} ms in "
            "explain's median), 3 delay(s): rank 1 gemm.fwd layer 0 {:+.2f} ms in "
            "every step; rank 1 gemm.fwd layer 0 +30.47 ms in step 3; rank 1 "
            "gemm.fwd layer 0 {:+.2f} ms in steps 4 to 6\n",
            r.causes.front().component_ms, every_step_ms, every_step_ms)) != std::string::npos);
}

TEST_CASE("a collective issued inside a compute phase splits it and runs asynchronously") {
  // DDP's shape: the bucket all-reduce is enqueued 2 ms into `backward` and completes after it.
  culprit::testing::RunBuilder b(2);
  for (int step = 0; step < 8; ++step) {
    const double t0 = step * 10.0;
    for (int r = 0; r < 2; ++r) {
      b.step(r, step, t0, t0 + 9.0);
      b.phase(r, step, 0, -1, "backward", t0, t0 + 6.0);
      b.collective(r, step, 0, t0 + 2.0, t0 + 8.0);
      b.phase(r, step, 0, -1, "optimizer", t0 + 8.0, t0 + 9.0);
    }
  }
  const auto c = calibrate(b.build());
  REQUIRE(c.phases.size() == 4);
  CHECK(c.phases[0].phase.name == "backward");
  CHECK(c.phases[0].phase.ms == doctest::Approx(2.0));
  CHECK(c.phases[1].phase.collective);
  CHECK(c.phases[1].phase.async);
  CHECK(c.phases[2].phase.name == "backward");
  CHECK(c.phases[2].phase.microbatch == 1000);
  CHECK(c.phases[2].phase.ms == doctest::Approx(4.0));
  CHECK(c.phases[3].phase.name == "optimizer");
  CHECK(c.phases[3].phase.waits);
  CHECK(c.phases[3].phase.gap_ms == doctest::Approx(0.0));  // waiting, not host time
}

TEST_CASE("waiting for a collective is not a host gap; pieces in some steps only are folded") {
  // An import's `backward` tail: after the bucket completes (t0 + 8) the rank resumes 0.5 ms
  // later; in half the steps the region comes back as one more piece, which is folded.
  culprit::testing::RunBuilder b(2);
  for (int step = 0; step < 8; ++step) {
    const double t0 = step * 12.0;
    const bool extra = step % 2 == 0;
    for (int r = 0; r < 2; ++r) {
      b.step(r, step, t0, t0 + 11.0);
      b.phase(r, step, 0, -1, "backward", t0, t0 + 6.0);
      b.collective(r, step, 0, t0 + 2.0, t0 + 8.0);
      b.phase(r, step, 1, -1, "backward", t0 + 8.5, t0 + 9.0);
      if (extra) b.phase(r, step, 2, -1, "backward", t0 + 9.2, t0 + 9.4);
      b.phase(r, step, 0, -1, "optimizer", t0 + 9.5, t0 + 10.5);
    }
  }
  const auto c = calibrate(b.build());
  REQUIRE(c.phases.size() == 5);
  const auto& tail = c.phases[3].phase;
  CHECK(tail.name == "backward");
  CHECK(tail.microbatch == 1);
  CHECK(tail.waits);
  CHECK(tail.gap_ms == doctest::Approx(0.5));  // after the completion, not after backward
  CHECK(tail.ms == doctest::Approx(0.6));      // median of 0.5 and 0.5 + the folded 0.2
  CHECK(c.phases[4].phase.name == "optimizer");
  CHECK_FALSE(c.phases[4].phase.waits);
}

namespace {
// Rank r's steps: in every fourth step an `exchange` first (as LAMMPS's MPI_Sendrecv of the
// steps that move atoms, `hiccup` ms longer on rank 1 there), then `work` (3 ms, `slow` more on
// rank 1 every step), then an all-reduce that completes when both have arrived.
culprit::storage::RunData exchanging_run(double slow, double hiccup, int run_id) {
  culprit::testing::RunBuilder b(2, 2);
  for (int step = 0; step < 14; ++step) {
    const double t0 = step * 30.0;
    const bool exchange = step % 4 == 1;
    auto arrival = [&](int r) {
      return t0 + (exchange ? 1.0 + (r == 1 ? hiccup : 0.0) : 0.0) + 3.0 + (r == 1 ? slow : 0.0) +
             0.01 * (step % 3);
    };
    const double last = std::max(arrival(0), arrival(1));
    for (int r = 0; r < 2; ++r) {
      const double work = arrival(r) - 3.0 - (r == 1 ? slow : 0.0) - 0.01 * (step % 3);
      b.step(r, step, t0, last + 0.3);
      if (exchange) b.phase(r, step, 0, -1, "exchange", t0, work);
      b.phase(r, step, 0, -1, "work", work, arrival(r));
      b.collective(r, step, 0, arrival(r), last + 0.2);
    }
  }
  culprit::storage::RunData run = b.build();
  run.run_id = run_id;
  return run;
}
}  // namespace

TEST_CASE("a straggler in a phase the model left out is said, not injected") {
  // The reduction of a LAMMPS run under PMPI injected a delay on MPI_Sendrecv, a phase of only
  // some steps that the calibration leaves out: the workload refused the planned configuration
  // ("unknown phase 'MPI_Sendrecv'", an internal error).
  const auto baseline = exchanging_run(0.0, 0.0, 1);
  const auto candidate = exchanging_run(2.0, 6.0, 2);
  const auto r = reduce_runs(baseline, candidate, {}, {});
  const auto c = calibrate(baseline);
  CHECK(std::none_of(c.phases.begin(), c.phases.end(),
                     [](const auto& p) { return p.phase.name == "exchange"; }));
  REQUIRE(r.causes.size() == 1);
  CHECK(r.causes[0].phase == "work");
  CHECK(r.causes[0].rank == 1);
  const auto said =
      std::find_if(r.not_reproduced.begin(), r.not_reproduced.end(),
                   [](const std::string& m) { return m.starts_with("rank 1 exchange"); });
  REQUIRE(said != r.not_reproduced.end());
  // The hiccup steps (2 warm-up steps, then every fourth from step 1), each with its excess.
  CHECK(said->find("+6.00 ms in step 5, +6.00 ms in step 9, +6.00 ms in step 13") !=
        std::string::npos);
  CHECK(said->find("the model has no exchange") != std::string::npos);
  // The manifest it writes plans: every delay names a phase of the schedule.
  const auto reduced = culprit::reduce::reduced_manifest(r, {});
  CHECK_NOTHROW(culprit::manifest::make_plan(reduced.manifest));
}

TEST_CASE("repetitions: enough for the control to decide at the margin, 8 to 60") {
  using culprit::reduce::repetitions_for;
  using culprit::reduce::repetitions_for_excess;
  CHECK(repetitions_for(0.0, 0.02) == 8);
  CHECK(repetitions_for(0.0153, 0.02) == 38);  // (4 x 1.53 % / 1 %)^2 = 37.5
  CHECK(repetitions_for(0.2, 0.02) == 60);
  CHECK(repetitions_for_excess(2.0, 1, 30.0) == 18);  // (2.5 x 2 / 1.2)^2 = 17.4
  CHECK(repetitions_for_excess(2.0, 0, 30.0) == 8);
}

TEST_CASE("item 2 (#38): one run as both baseline and candidate is refused") {
  // The same synthetic run twice: its own straggler would be "reproduced" as a change of 0 ms.
  SyntheticSpec s = spec();
  s.jitter_cv = 0.01;
  s.delays.push_back({1, "gemm.fwd", 0, -1, 3.0});
  auto run = synthesize(s);
  run.run_id = 4;
  CHECK_THROWS_WITH_AS(reduce_runs(run, run, {}, {}),
                       doctest::Contains("run 4 is both the baseline and the candidate"),
                       culprit::UsageError);
}

TEST_CASE(
    "the reduced manifest is a typed value that plans, and written it parses back to itself") {
  culprit::reduce::Reduction r = reduced_straggler();
  REQUIRE(r.causes.size() == 1);
  // A second cause, hand-made from the first (another rank), so that all-causes is written.
  r.causes.push_back(r.causes.front());
  r.causes.back().original_rank = r.causes.back().rank = 2;
  for (auto& d : r.causes.back().delays) d.rank = 2;
  r.excess_steps = {3, 5};  // a hiccup's figure and a configuration shift: every optional key
  r.step_excess_ms = 1.23456789;
  culprit::reduce::ReducedManifestOptions o;
  o.name = "reduce-1-7";
  o.path = "repro.toml";
  o.source_db = "a \"quoted\" store.db";
  o.repetitions = 12;
  o.level_draws = 15;
  o.configuration_shift_ms = 3.14159;
  o.baseline_config_runs = 6;
  o.candidate_config_runs = 5;
  const auto reduced = culprit::reduce::reduced_manifest(r, o);
  const culprit::manifest::Manifest& m = reduced.manifest;
  CHECK(m.settings.repetitions == 12);
  CHECK(m.settings.max_repetitions == 12);
  REQUIRE(m.reduced_from.has_value());
  CHECK(m.reduced_from->candidate_run == 7);
  CHECK(m.reduced_from->shift_ms == 3.14);
  CHECK(m.reduced_from->step_excess_ms == 1.234568);
  CHECK(m.versions.size() == 5);  // model, cause-1, cause-2, all-causes, control
  REQUIRE(m.vary.size() == 1);
  CHECK(m.vary[0].levels.size() == 4);
  CHECK(m.versions.at("all-causes").inject.delays.size() == 2);
  const culprit::manifest::Plan plan = culprit::manifest::make_plan(m);
  CHECK(plan.configs.size() == 5);  // the baseline (model) and the four levels
  CHECK(plan.configs.front().run.model.schedule.size() == r.baseline.phases.size());
  culprit::manifest::testing::check_round_trip(m, reduced.layout);
  const std::string text = culprit::manifest::write_manifest(m, reduced.layout);
  CHECK(text.starts_with("# Reduced by `culprit reduce` from runs "));
  CHECK(text.find("of a \"quoted\" store.db.\n") != std::string::npos);
  CHECK(text.find("db = \"a \\\"quoted\\\" store.db\"") != std::string::npos);
  const auto model = text.find("[versions.\"model\"]");
  const auto cause = text.find("[versions.\"cause-1\"]");
  const auto control = text.find("[versions.\"control\"]");
  CHECK(model < cause);
  CHECK(cause < control);
  CHECK(text.find("levels = [\"cause-1\", \"cause-2\", \"all-causes\", \"control\"]") !=
        std::string::npos);
}
