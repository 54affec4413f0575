#include <doctest/doctest.h>

#include <cmath>

#include "culprit/analysis/step_times.hpp"

using namespace culprit;

namespace {
storage::Event step_event(int rank, int step, std::int64_t begin, std::int64_t end) {
  return {.begin_ns = begin,
          .end_ns = end,
          .rank = rank,
          .step = step,
          .kind = storage::EventKind::kStep};
}
}  // namespace

TEST_CASE("step time runs from one global boundary to the next on the aligned clock") {
  storage::RunData run;
  run.ranks = 2;
  run.warmup_steps = 1;
  run.clocks.resize(2);
  run.clocks[1].rank = 1;
  run.clocks[1].offset_ns = -1'000'000'000;  // rank 1's raw clock runs 1 s ahead
  // step 0: rank 0 ends at 10 ms, rank 1 at 12 ms (aligned)
  run.events.push_back(step_event(0, 0, 0, 10'000'000));
  run.events.push_back(step_event(1, 0, 1'000'000'000, 1'012'000'000));
  // step 1: rank 0 ends at 30 ms, rank 1 at 25 ms
  run.events.push_back(step_event(0, 1, 10'000'000, 30'000'000));
  run.events.push_back(step_event(1, 1, 1'012'000'000, 1'025'000'000));
  // step 2: only rank 0 -> incomplete, ignored
  run.events.push_back(step_event(0, 2, 30'000'000, 40'000'000));

  auto steps = analysis::step_times(run);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].warmup);
  CHECK(steps[0].time_ms == doctest::Approx(12.0));
  CHECK(steps[0].last_rank == 1);
  CHECK(steps[1].time_ms == doctest::Approx(18.0));
  CHECK(steps[1].last_rank == 0);
  CHECK(analysis::median_step_ms(steps) == doctest::Approx(18.0));
}

TEST_CASE("item 6 (#38): a run without a steady step says why") {
  storage::RunData run;  // hand-written step events, two ranks
  run.ranks = 2;
  run.warmup_steps = 1;
  run.clocks.resize(2);
  CHECK(analysis::no_steady_step_reason(run) ==
        "the run holds no step event (no rank marked a step)");
  // Every step numbered 0 (the Python module's step(0) in a loop): one step, all warm-up.
  for (int i = 0; i < 3; ++i) {
    run.events.push_back(step_event(0, 0, i * 10, i * 10 + 5));
    run.events.push_back(step_event(1, 0, i * 10, i * 10 + 5));
  }
  CHECK(std::isnan(analysis::median_step_ms(analysis::step_times(run))));
  CHECK(analysis::no_steady_step_reason(run) ==
        "rank 0 recorded step 0 3 times: each step needs its own number (steps numbered alike "
        "are one step)");
  run.rank_ids = {4, 7};  // a partial import names the job's rank
  CHECK(analysis::no_steady_step_reason(run).rfind("rank 4 recorded step 0 3 times", 0) == 0);
  run.rank_ids.clear();
  run.events = {step_event(0, 0, 0, 5), step_event(1, 0, 0, 5)};
  CHECK(analysis::no_steady_step_reason(run) ==
        "every step recorded (0..0) is within the warm-up (warmup_steps = 1)");
  run.events.push_back(step_event(0, 1, 5, 9));  // rank 1 never finished step 1
  CHECK(analysis::no_steady_step_reason(run) ==
        "step 1 was recorded by 1 of the 2 ranks: a step not every rank finished ends the run's "
        "usable steps");
}

TEST_CASE("StepTimesBuilder folds step events in any rank order as step_times does") {
  storage::RunData run;
  run.ranks = 3;
  run.warmup_steps = 1;
  run.clocks.resize(3);
  for (int r = 0; r < 3; ++r) run.clocks[static_cast<std::size_t>(r)].rank = r;
  run.clocks[2].offset_ns = -500;
  run.clocks[2].drift_ppm = 20;
  for (int step = 0; step < 4; ++step) {
    for (int rank = 0; rank < 3; ++rank) {
      const std::int64_t begin = step * 1'000'000 + rank * 7'000;
      run.events.push_back(step_event(rank, step, begin, begin + 900'000 + (rank == 1) * 50'000));
    }
  }
  const auto loaded = analysis::step_times(run);
  REQUIRE(loaded.size() == 4);
  // Rank-major, as the store's copy of a run shows them; clocks handed over out of order.
  analysis::StepTimesBuilder builder({run.clocks[2], run.clocks[0], run.clocks[1]});
  for (int rank = 2; rank >= 0; --rank) {
    for (const storage::Event& e : run.events) {
      if (e.rank == rank) builder.add(e.rank, e.step, e.begin_ns, e.end_ns);
    }
  }
  const auto folded = builder.finish(3, 1);
  REQUIRE(folded.size() == loaded.size());
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    CHECK(folded[i].step == loaded[i].step);
    CHECK(folded[i].time_ms == loaded[i].time_ms);
    CHECK(folded[i].boundary_ns == loaded[i].boundary_ns);
    CHECK(folded[i].last_rank == loaded[i].last_rank);
    CHECK(folded[i].warmup == loaded[i].warmup);
  }
  CHECK(loaded[1].last_rank == 1);
  CHECK_THROWS_WITH(builder.finish(2, 1),
                    "step events of 3 ranks (the highest 2) in a run of 2 ranks (meta.ranks): "
                    "the run file's ranks and events disagree");
}
