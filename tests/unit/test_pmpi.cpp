// The PMPI interposer's pure parts: step boundaries from the step rule, the delay plan (which
// call, which occurrence, which steps) and the call table shared with the manifest.

#include <doctest/doctest.h>

#include "calls.hpp"
#include "delays.hpp"
#include "step_counter.hpp"

using namespace culprit::pmpi;

TEST_CASE("step counter: every k-th call is a boundary; only kept steps get a step event") {
  StepCounter steps(3, 2);  // every 3rd call, warm-up + steps = 2
  CHECK(steps.step() == -1);
  int boundaries = 0;
  std::vector<StepCounter::Closed> closed;
  for (int call = 1; call <= 12; ++call) {
    if (steps.count()) {
      ++boundaries;
      closed.push_back(steps.boundary(call * 100));
    }
  }
  CHECK(boundaries == 4);  // calls 3, 6, 9, 12
  REQUIRE(closed.size() == 4);
  CHECK_FALSE(closed[0].has_step);  // the first boundary ends step -1 (before the steps)
  CHECK(closed[1].has_step);
  CHECK(closed[1].step == 0);
  CHECK(closed[1].begin_ns == 300);
  CHECK(closed[2].has_step);
  CHECK(closed[2].step == 1);
  CHECK_FALSE(closed[3].has_step);  // step 2 is past the count: numbered, no step event
  CHECK(steps.step() == 3);
  // The steps whose CPU wait is recorded are the kept ones.
  CHECK_FALSE(steps.kept(-1));
  CHECK(steps.kept(0));
  CHECK(steps.kept(1));
  CHECK_FALSE(steps.kept(2));
}

TEST_CASE("delay plan: rank, call, occurrence and steps select the delay") {
  std::vector<stepmodel::DelayInjection> delays(4);
  delays[0] = {1, "compute>MPI_Allreduce", -1, -1, 5, 7, 10.0, "sleep"};
  delays[1] = {1, "compute>MPI_Wait", 2, -1, -1, -1, 1.5, "spin"};
  delays[2] = {0, "compute>MPI_Allreduce", -1, -1, -1, -1, 3.0, "sleep"};  // another rank
  delays[3] = {1, "gemm.fwd", -1, -1, -1, -1, 3.0, "sleep"};               // not a pmpi phase
  const DelayPlan plan(delays, 1);
  bool spin = false;
  CHECK(plan.due(kAllreduce, 0, 4, spin) == 0);
  CHECK(plan.due(kAllreduce, 0, 5, spin) == 10'000'000);
  CHECK(plan.due(kAllreduce, 3, 7, spin) == 10'000'000);
  CHECK(plan.due(kAllreduce, 0, 8, spin) == 0);
  CHECK_FALSE(spin);
  CHECK(plan.due(kWait, 1, 100, spin) == 0);
  CHECK(plan.due(kWait, 2, 100, spin) == 1'500'000);
  CHECK(spin);
  CHECK(plan.due(kBarrier, 0, 5, spin) == 0);
  CHECK(DelayPlan(delays, 2).empty());
}

TEST_CASE("spend: sleeps or spins at least the time asked") {
  for (bool spin : {false, true}) {
    const std::int64_t start = stepclock::monotonic_ns();
    spend(2'000'000, spin);
    CHECK(stepclock::monotonic_ns() - start >= 2'000'000);
  }
}

TEST_CASE("call table: names, indices and the manifest's phase names agree") {
  CHECK(call_name(kAllreduce) == "MPI_Allreduce");
  CHECK(is_collective(kExscan));
  CHECK_FALSE(is_collective(kWait));
  CHECK(call_index("MPI_Nope") == kCallCount);
  CHECK(stepmodel::is_pmpi_phase("compute>MPI_Waitall"));
  CHECK(stepmodel::is_pmpi_phase("compute>MPI_Finalize"));
  CHECK_FALSE(stepmodel::is_pmpi_phase("compute>MPI_Send"));
  CHECK_FALSE(stepmodel::is_pmpi_phase("MPI_Allreduce"));
}
