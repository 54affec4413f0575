// The report's pictures of one run (analysis/figures) and the Perfetto trace export, on
// synthetic runs with a known straggler.
#include <doctest/doctest.h>

#include <simdjson.h>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "analysis/synthetic_run.hpp"
#include "culprit/analysis/figures.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/perfetto_export.hpp"

using namespace culprit;
using culprit::testing::Delay;
using culprit::testing::synthesize;
using culprit::testing::SyntheticSpec;

namespace {

SyntheticSpec spec_with(int ranks, int late_rank) {
  SyntheticSpec spec = culprit::testing::sleep_spec(ranks, 6, 1, 4, 1);
  spec.jitter_cv = 0.01;
  spec.delays.push_back(Delay{late_rank, "gemm.fwd", 2, 0, 30});
  return spec;
}

}  // namespace

TEST_CASE("figures: one heat-map row per rank, the late rank's lateness is its delay") {
  const storage::RunData run = synthesize(spec_with(8, 5));
  const analysis::RunAttribution a = analysis::attribute_run(run);
  const analysis::RunFigures f = analysis::run_figures(run, a, {});
  REQUIRE(f.lateness.rows.size() == 8);
  CHECK(f.lateness.ranks_per_bin == 1);
  CHECK(f.lateness.aggregation.empty());
  const analysis::HeatRow& late = f.lateness.rows[5];
  CHECK(late.first_rank == 5);
  // Steady steps: rank 5 arrives 30 ms after the median arrival.
  CHECK(late.values_ms.back() == doctest::Approx(30).epsilon(0.05));
  CHECK(f.lateness.rows[0].values_ms.back() == doctest::Approx(0).epsilon(0.5));
  CHECK(f.excess.rows[5].values_ms.back() == doctest::Approx(30).epsilon(0.05));
  CHECK(f.excess.rows[1].values_ms.back() == doctest::Approx(0));
  // The timeline: every rank a lane, the first divergence on rank 5's gemm.fwd layer 2.
  REQUIRE(f.lanes.found);
  CHECK(f.lanes.lanes.size() == 8);
  REQUIRE(f.lanes.divergence.found);
  CHECK(f.lanes.divergence.rank == 5);
  int marked = 0;
  for (const analysis::Lane& lane : f.lanes.lanes) {
    for (const analysis::LaneEvent& e : lane.events) {
      if (!e.divergence) continue;
      ++marked;
      CHECK(lane.rank == 5);
      CHECK(e.name == "gemm.fwd");
      CHECK(e.layer == 2);
    }
  }
  CHECK(marked == 1);
}

TEST_CASE("figures: many ranks are binned, the extreme rank keeps its own row") {
  const storage::RunData run = synthesize(spec_with(300, 217));
  const analysis::RunAttribution a = analysis::attribute_run(run);
  analysis::FigureOptions options;
  options.max_rows = 40;
  options.kept_ranks = 4;
  options.max_lanes = 10;
  const analysis::RunFigures f = analysis::run_figures(run, a, {}, options);
  CHECK(f.lateness.ranks_per_bin > 1);
  CHECK(static_cast<int>(f.lateness.rows.size()) <= options.max_rows + options.kept_ranks);
  CHECK(f.lateness.aggregation.find("bins of") != std::string::npos);
  // Every rank is in a bin row; rank 217 also has its own kept row, bright.
  std::set<int> covered;
  const analysis::HeatRow* kept = nullptr;
  for (const analysis::HeatRow& row : f.lateness.rows) {
    if (row.kept && row.first_rank == 217) kept = &row;
    if (!row.kept)
      for (int r = row.first_rank; r <= row.last_rank; ++r) covered.insert(r);
  }
  CHECK(covered.size() == 300);
  REQUIRE(kept != nullptr);
  CHECK(kept->values_ms.back() == doctest::Approx(30).epsilon(0.05));
  // Lanes: at most 10, the culprit's among them.
  CHECK(f.lanes.lanes.size() == 10);
  bool has_culprit = false;
  for (const analysis::Lane& lane : f.lanes.lanes) has_culprit |= lane.rank == 217;
  CHECK(has_culprit);
}

TEST_CASE("perfetto: slices, waits, flows and filters") {
  const storage::RunData run = synthesize(spec_with(4, 3));
  const analysis::RunAttribution a = analysis::attribute_run(run);
  const analysis::Timeline timeline = analysis::build_timeline(run);
  const std::vector<analysis::CollectiveTiming> timings = analysis::time_collectives(timeline);
  const std::string text = report::perfetto_trace(timeline, timings, a, {});
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(text);
  std::map<std::string, int> phases;
  std::map<std::int64_t, std::map<std::string, int>> flows;
  int slices = 0, waits = 0, culprit_marks = 0;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    const std::string ph{std::string_view(e["ph"])};
    ++phases[ph];
    if (ph == "X") {
      const std::string cat{std::string_view(e["cat"])};
      (cat == "wait" ? waits : slices) += 1;
      CHECK(double(e["dur"]) >= 0);
    }
    if (ph == "s" || ph == "t" || ph == "f") ++flows[std::int64_t(e["id"])][ph];
    if (ph == "i" && std::string_view(e["name"]).starts_with("culprit:")) ++culprit_marks;
  }
  CHECK(slices == static_cast<int>(run.events.size()));
  CHECK(waits > 0);
  REQUIRE(!flows.empty());
  for (const auto& [id, kinds] : flows) {
    CHECK(kinds.at("s") == 1);
    CHECK(kinds.at("f") == 1);
    CHECK(kinds.at("t") == 2);  // 4 ranks: start, two steps, finish
  }
  CHECK(culprit_marks == 1);
  CHECK(std::int64_t(doc["otherData"]["culprit"]["rank"]) == 3);

  report::TraceFilter filter;
  filter.ranks = {0, 3};
  filter.first_step = 2;
  filter.last_step = 3;
  const std::string part = report::perfetto_trace(timeline, timings, a, filter);
  const simdjson::dom::element small = parser.parse(part);
  for (simdjson::dom::element e : small["traceEvents"].get_array()) {
    const std::int64_t pid = e["pid"];
    CHECK((pid == 0 || pid == 3));
    if (std::string_view(e["ph"]) == "X") {
      const std::int64_t step = e["args"]["step"];
      CHECK((step >= 2 && step <= 3));
    }
  }
}

TEST_CASE("json writer: raw values are copied as they are") {
  report::JsonWriter json;
  json.begin_object().key("a").raw("{\"b\":[1,2]}").field("c", 3).end_object();
  CHECK(json.str() == "{\"a\":{\"b\":[1,2]},\"c\":3}");
}
