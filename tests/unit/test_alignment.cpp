// Alignment and collective matching on hand-built event sets with known answers.
#include <doctest/doctest.h>

#include "analysis/synthetic_run.hpp"
#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/timeline.hpp"

using namespace culprit;
using culprit::testing::kMs;
using culprit::testing::RunBuilder;

namespace {

// Three ranks, one step, one all-reduce; rank 2's forward GEMM runs 15 ms long.
// Rank 1's raw clock reads 1000 ms ahead; its clock model knows it.
RunBuilder three_ranks(double rank1_model_error_ms = 0, double rank1_uncertainty_ms = 0.001) {
  RunBuilder b(3);
  const double o = 1000;
  b.phase(0, 0, 0, 0, "gemm.fwd", 0, 10).collective(0, 0, 0, 11, 31).step(0, 0, 0, 32);
  b.phase(1, 0, 0, 0, "gemm.fwd", o, o + 10)
      .collective(1, 0, 0, o + 12, o + 31)
      .step(1, 0, o, o + 32);
  b.phase(2, 0, 0, 0, "gemm.fwd", 0, 25).collective(2, 0, 0, 26, 31).step(2, 0, 0, 32);
  b.clock(1).offset_ns = -o * kMs + rank1_model_error_ms * kMs;
  b.clock(1).uncertainty_ns = rank1_uncertainty_ms * kMs;
  b.clock(2).uncertainty_ns = 1e3;
  return b;
}

}  // namespace

TEST_CASE("collectives: last arriver, waits, transfer and skew on the aligned clock") {
  const storage::RunData run = three_ranks().build();
  const analysis::Timeline t = analysis::build_timeline(run);
  REQUIRE(t.collectives.size() == 1);
  const auto c = analysis::time_collectives(t).at(0);
  CHECK(c.last_arriver == 2);
  CHECK(c.runner_up == 1);
  CHECK(c.decided);
  CHECK(c.wait_ns[0] == doctest::Approx(15 * kMs));
  CHECK(c.wait_ns[1] == doctest::Approx(14 * kMs));
  CHECK(c.wait_ns[2] == doctest::Approx(0));
  CHECK(c.total_wait_ns == doctest::Approx(29 * kMs));
  CHECK(c.transfer_ns == doctest::Approx(5 * kMs));  // completion 31 - last arrival 26
  CHECK(c.skew_ns == doctest::Approx(15 * kMs));
}

TEST_CASE("collectives are matched by (step, seq), never by time; incomplete ones are dropped") {
  RunBuilder b(2);
  b.collective(0, 0, 0, 0, 5).collective(0, 0, 1, 6, 9).collective(0, 1, 0, 10, 12);
  b.collective(1, 0, 1, 7, 9).collective(1, 0, 0, 4, 5);  // logged out of order, no (1, 0)
  b.step(0, 0, 0, 9).step(1, 0, 0, 9);
  const storage::RunData run = b.build();
  const analysis::Timeline t = analysis::build_timeline(run);
  REQUIRE(t.collectives.size() == 2);
  CHECK(t.collectives[0].seq == 0);
  CHECK(t.collectives[1].seq == 1);
  const auto timings = analysis::time_collectives(t);
  CHECK(timings[0].last_arriver == 1);
  CHECK(timings[1].last_arriver == 1);
}

TEST_CASE("alignment: a clock model off by more than causality allows is corrected") {
  // Rank 1's model is 3 ms off but claims 5 ms uncertainty; the completions (which coincide)
  // pull it back, and rank 1 stops looking like it arrived 1 ms before rank 0 did.
  const storage::RunData run = three_ranks(3.0, 5.0).build();
  const analysis::Timeline t = analysis::build_timeline(run);
  CHECK(t.alignment[0].correction_ns == 0);
  CHECK(t.alignment[1].correction_ns == doctest::Approx(-3 * kMs).epsilon(1e-6));
  CHECK(t.alignment[1].uncertainty_ns <= 2 * 5 * kMs + 1);  // truth anywhere in +-5 ms
  const auto c = analysis::time_collectives(t).at(0);
  CHECK(c.wait_ns[1] == doctest::Approx(14 * kMs));
}

TEST_CASE("alignment: a model that contradicts causality beyond its bound is flagged") {
  // 20 ms off with a claimed 1 us bound: rank 1 would complete before rank 2 arrived.
  const storage::RunData run = three_ranks(-20.0, 0.001).build();
  const analysis::Timeline t = analysis::build_timeline(run);
  CHECK(t.alignment[1].model_contradicted);
  const auto c = analysis::time_collectives(t).at(0);
  CHECK(c.last_arriver == 2);
  CHECK(c.completion_ns[1] >= c.last_arrival_ns);
}

TEST_CASE("alignment: a skew smaller than the clock uncertainty is 'cannot decide'") {
  RunBuilder b(2);
  b.collective(0, 0, 0, 10.0, 20).step(0, 0, 0, 20);
  b.collective(1, 0, 0, 10.0005, 20).step(1, 0, 0, 20);  // 0.5 us later
  b.clock(1).uncertainty_ns = 2e3;
  const storage::RunData run = b.build();
  const auto c = analysis::time_collectives(analysis::build_timeline(run)).at(0);
  CHECK_FALSE(c.decided);
  CHECK(c.last_candidates.size() == 2);
}

TEST_CASE("timeline: step times use the refined clock") {
  const storage::RunData run = three_ranks().build();
  const analysis::Timeline t = analysis::build_timeline(run);
  REQUIRE(t.steps.size() == 1);
  CHECK(t.steps[0].time_ms == doctest::Approx(32.0));
  CHECK(t.step_event[0][1] >= 0);
}
