// explain: a median step-time change decomposed into components + unclassified that add up
// exactly (in hundredths of a millisecond) to the measured change, with the culprit named.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "analysis/synthetic_run.hpp"
#include "culprit/analysis/explain.hpp"
#include "culprit/report/explain_report.hpp"

using namespace culprit;
using culprit::testing::Delay;
using culprit::testing::synthesize;
using culprit::testing::SyntheticSpec;

namespace {

SyntheticSpec base_spec(std::uint64_t seed) {
  SyntheticSpec spec = culprit::testing::sleep_spec(8, 8, 1, 6, 1);
  spec.jitter_cv = 0.01;
  spec.seed = seed;
  return spec;
}

analysis::RunAttribution attribute(const SyntheticSpec& spec, std::int64_t id) {
  storage::RunData run = synthesize(spec);
  run.run_id = id;
  return analysis::attribute_run(run);
}

std::int64_t centi(double ms) {
  return std::llround(ms * 100);
}

void check_reconciles(const analysis::Explanation& e) {
  std::int64_t sum = centi(e.unclassified_ms);
  for (const auto& c : e.components) sum += centi(c.ms);
  CHECK(sum == centi(e.delta_ms));
  CHECK(centi(e.delta_ms) == centi(e.candidate_median_ms - e.baseline_median_ms));
}

}  // namespace

TEST_CASE("explain: a straggler's delay is the candidate's straggler component") {
  const auto base = analysis::median_step("base", {attribute(base_spec(1), 1)});
  SyntheticSpec slow = base_spec(2);
  slow.delays.push_back(Delay{5, "gemm.fwd", 3, 0, 30});
  const auto cand =
      analysis::median_step("delay", {attribute(slow, 2), attribute(base_spec(3), 3)});
  // Two representative runs (an even count): their decompositions are averaged.
  CHECK(cand.runs.size() == 2);
  const analysis::Explanation e = analysis::explain(base, cand);
  check_reconciles(e);
  CHECK(e.delta_ms == doctest::Approx(15).epsilon(0.05));
  REQUIRE(!e.components.empty());
  const auto& top = e.components.front();
  CHECK(top.category == analysis::Category::kStraggler);
  CHECK(top.rank == 5);
  CHECK(top.phase == "gemm.fwd");
  CHECK(top.layer == 3);
  CHECK(top.ms == doctest::Approx(15).epsilon(0.01));
  CHECK(top.first_divergence);
  REQUIRE(e.culprit.found);
  CHECK(e.culprit.rank == 5);
  const std::string equation = report::explain_equation(e);
  CHECK(equation.find("rank 5 gemm.fwd layer 3 (first divergence)") != std::string::npos);
  CHECK(equation.find("unclassified") != std::string::npos);

  // The dashboard figure of each representative run travels with the explanation: the waiting
  // ranks stay "busy" in collectives' absence, so it drops but names nobody.
  CHECK(e.baseline_activity.busy_share == base.attribution.activity.busy_share);
  CHECK(e.candidate_activity.busy_share == cand.attribution.activity.busy_share);
  CHECK(e.baseline_activity.busy_share > 0);
  CHECK(e.baseline_activity.busy_share <= 1);
  CHECK(e.candidate_activity.busy_share < e.baseline_activity.busy_share);
  analysis::StoredExplanations stored;
  stored.experiment = "x";
  stored.explanations.push_back(e);
  const std::string json = report::explain_json(stored);
  CHECK(json.find("\"sampled_activity\":{\"baseline\":{") != std::string::npos);
  // One pair has the shape of several: {experiment, explanations[], skipped[]}.
  CHECK(json.rfind("{\"experiment\":\"x\",\"explanations\":[{", 0) == 0);
  CHECK(json.find("\"skipped\":[]}") != std::string::npos);
  CHECK(json.find("\"busy_share\":") != std::string::npos);
  // These runs are shorter than one sampling period: no dashboard line (issue 37), until a run
  // has samples.
  REQUIRE(e.baseline_activity.samples == 0);
  REQUIRE(e.candidate_activity.samples == 0);
  CHECK(report::explain_text(stored).find("sampled activity") == std::string::npos);
  stored.explanations[0].candidate_activity.samples = 3;
  const std::string text = report::explain_text(stored);
  CHECK(text.find("sampled activity (a 1 s dashboard): baseline ") != std::string::npos);
  CHECK(text.find("it does not locate the cause") != std::string::npos);
}

TEST_CASE("explain: a slower version shows as typical time of every GEMM, no culprit") {
  const auto base = analysis::median_step("base", {attribute(base_spec(1), 1)});
  SyntheticSpec slower = base_spec(4);
  slower.model.compute_scale = 1.2;
  const auto cand = analysis::median_step("slower", {attribute(slower, 2)});
  const analysis::Explanation e = analysis::explain(base, cand);
  check_reconciles(e);
  CHECK_FALSE(e.culprit.found);
  CHECK(e.delta_ms > 0);
  for (const auto& c : e.components) CHECK(c.category != analysis::Category::kStraggler);
}

TEST_CASE("explain always reconciles, whatever the runs") {
  for (std::uint64_t seed = 10; seed < 16; ++seed) {
    SyntheticSpec a = base_spec(seed);
    SyntheticSpec b = base_spec(seed + 100);
    a.jitter_cv = b.jitter_cv = 0.05;
    b.delays.push_back(
        Delay{static_cast<int>(seed % 8), "optimizer", -1, -1, 0.37 * static_cast<double>(seed)});
    const auto e = analysis::explain(analysis::median_step("a", {attribute(a, 1)}),
                                     analysis::median_step("b", {attribute(b, 2)}));
    check_reconciles(e);
  }
}
