// culprit validate's side of blind attribution: the injection truth is read apart from the run's
// facts, and the type analysis receives cannot carry it.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/storage/run_data.hpp"
#include "stepmodel/config.hpp"

using namespace culprit;

// Blind attribution is a property of the types: the run that analysis receives carries events,
// clock models, names, ranks and warm-up, never the configuration echo (the injection truth).
// Only validate reads the truth, by run id, through storage::load_run_config_echo.
template <typename Run>
concept CarriesConfigEcho = requires(const Run& run) {
  run.config_json;
};
static_assert(!CarriesConfigEcho<storage::RunData>, "analysis must not see the injection truth");

TEST_CASE("the injection truth is the largest delay; slowdowns are not a (rank, phase) case") {
  stepmodel::Injections inject;
  CHECK_FALSE(analysis::injection_truth(inject).delay);
  inject.delays.push_back({1, "gemm.fwd", 0, -1, -1, -1, 20.0, "sleep"});
  inject.delays.push_back({3, "layer2", -1, -1, -1, -1, 45.0, "spin"});
  inject.delays.push_back({2, "allreduce", -1, -1, -1, -1, 0.0, "sleep"});
  const analysis::InjectionTruth truth = analysis::injection_truth(inject);
  REQUIRE(truth.delay);
  CHECK(truth.delay->rank == 3);
  CHECK(truth.delay->phase == "layer2");
  CHECK(truth.delay->ms == 45.0);
  CHECK_FALSE(truth.other_injection);
  inject.delays.clear();
  inject.slowdowns.push_back({1, 1.5});
  CHECK(analysis::injection_truth(inject).other_injection);
  // A custom program's configuration names its own phases: read with PhaseNames::kAny.
  const std::string echo =
      R"({"ranks":4,"inject":{"delays":[{"rank":3,"phase":"layer2","ms":45}]}})";
  CHECK_THROWS_AS(stepmodel::parse_run_config(echo), std::invalid_argument);
  CHECK(analysis::injection_truth(
            stepmodel::parse_run_config(echo, stepmodel::PhaseNames::kAny).inject)
            .delay->phase == "layer2");
}
