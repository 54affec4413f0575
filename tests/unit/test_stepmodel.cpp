#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "stepmodel/config.hpp"
#include "stepmodel/schedule.hpp"

using namespace stepmodel;

namespace {

// A GEMM model of `layers` layers, `microbatches` micro-batches and `buckets` gradient buckets.
ModelConfig gemm_model(int layers, int microbatches, int buckets) {
  ModelConfig m;
  m.layers = layers;
  m.microbatches = microbatches;
  m.buckets = buckets;
  return m;
}

// `phase` is the all-reduce of bucket `seq`, blocking or overlapped (asynchronous).
void check_allreduce(const Phase& phase, int seq, bool asynchronous) {
  CHECK(phase.name == kAllreduce);
  CHECK(phase.seq == seq);
  CHECK(phase.asynchronous == asynchronous);
}

}  // namespace

TEST_CASE("buckets cover every layer once, last layers first") {
  ModelConfig m = gemm_model(5, 2, 2);
  m.hidden = 8;
  auto b = buckets(m);
  REQUIRE(b.size() == 2);
  CHECK(b[0].last_layer == 4);
  CHECK(b[0].first_layer == 2);
  CHECK(b[1].last_layer == 1);
  CHECK(b[1].first_layer == 0);
  CHECK(b[0].bytes == 3 * 8 * 8 * 4);
  CHECK(b[1].bytes == 2 * 8 * 8 * 4);
}

TEST_CASE("schedule without overlap: fwd, bwd, then blocking all-reduces, then optimizer") {
  const ModelConfig m = gemm_model(2, 2, 2);
  auto phases = step_schedule(m);
  // 2 mb x (2 fwd + 2x2 bwd) + 2 all-reduce + optimizer
  REQUIRE(phases.size() == 2 * 6 + 2 + 1);
  CHECK(phases[0].name == kGemmFwd);
  CHECK(phases[2].name == kGemmDgrad);
  CHECK(phases[2].layer == 1);
  check_allreduce(phases[12], 0, false);
  CHECK(phases[14].name == kOptimizer);
  CHECK(model_flops_per_step(m) == doctest::Approx(3 * gemm_fwd_flops(m) * 4));
}

TEST_CASE("schedule with overlap issues a bucket right after its lowest layer's wgrad") {
  ModelConfig m = gemm_model(4, 1, 2);
  m.overlap = true;
  auto phases = step_schedule(m);
  // fwd 0..3, then bwd 3,2 -> bucket 0 (layers 2-3), bwd 1,0 -> bucket 1
  REQUIRE(phases.size() == 4 + 8 + 2 + 1);
  CHECK(phases[7].name == kGemmWgrad);
  CHECK(phases[7].layer == 2);
  check_allreduce(phases[8], 0, true);
  CHECK(phases[14].name == kOptimizer);
}

TEST_CASE("resolved configuration parses and validates") {
  auto c = parse_run_config(R"({"backend":"cpu","ranks":4,"steps":3,"warmup_steps":1,
    "model":{"layers":3,"buckets":3,"compute":"sleep","overlap":true},
    "inject":{"delays":[{"rank":2,"phase":"gemm.fwd","layer":1,"ms":40,"mode":"spin"}],
              "clock_skews":[{"rank":1,"offset_ms":500,"drift_ppm":100}]}})");
  CHECK(c.ranks == 4);
  CHECK(c.model.layers == 3);
  CHECK(c.model.overlap);
  REQUIRE(c.inject.delays.size() == 1);
  CHECK(c.inject.delays[0].rank == 2);
  CHECK(c.inject.delays[0].ms == 40.0);
  CHECK(c.inject.clock_skews[0].drift_ppm == 100.0);

  CHECK_THROWS_WITH_AS(
      parse_run_config(R"({"ranks":2,"inject":{"delays":[{"rank":5,"phase":"gemm.fwd"}]}})"),
      doctest::Contains("outside 0..1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_run_config(R"({"model":{"buckets":9,"layers":2}})"),
                       doctest::Contains("model.buckets"), std::invalid_argument);
  CHECK_THROWS_AS(parse_run_config("not json"), std::invalid_argument);
}

TEST_CASE("a measured schedule round-trips through the resolved configuration") {
  const std::string json = R"({"backend":"sim","ranks":2,"warmup_steps":1,"steps":3,
    "model":{"compute":"sleep","schedule":[
      {"name":"layer0","ms":2.5,"layer":0},
      {"name":"allreduce","collective":true,"seq":0,"bytes":4096,"ms":0.5,"async":true},
      {"name":"optimizer","ms":1,"gap_ms":0.25,"waits":true}]},
    "inject":{"delays":[{"rank":-1,"phase":"layer0","layer":-1,"microbatch":-1,
      "step_first":-1,"step_last":-1,"ms":3,"mode":"sleep"}]}})";
  const stepmodel::RunConfig c = stepmodel::parse_run_config(json);
  REQUIRE(c.model.schedule.size() == 3);
  CHECK(c.model.schedule[1].collective);
  CHECK(c.model.schedule[1].bytes == 4096);
  CHECK(c.inject.delays.front().rank == stepmodel::kEveryRank);
  const auto phases = stepmodel::step_schedule(c.model);
  REQUIRE(phases.size() == 3);
  CHECK(phases[0].name == "layer0");
  CHECK(phases[0].fixed_ns == doctest::Approx(2.5e6));
  CHECK(phases[1].kind == stepmodel::PhaseKind::kCollective);
  CHECK(phases[1].asynchronous);
  CHECK(phases[2].gap_ns == doctest::Approx(0.25e6));
  CHECK(phases[2].waits_for_async);
  CHECK(stepmodel::delay_phase_names(c.model) ==
        std::vector<std::string>{"layer0", "allreduce", "optimizer"});
  // The GEMM step's optimizer waits for overlapped all-reduces too.
  CHECK(stepmodel::step_schedule(stepmodel::ModelConfig{}).back().waits_for_async);
}

TEST_CASE("a delay on a phase the measured schedule does not have is refused") {
  const std::string json = R"({"backend":"sim","ranks":2,"model":{"schedule":[
      {"name":"layer0","ms":2.5}]},"inject":{"delays":[{"rank":0,"phase":"gemm.fwd","ms":3}]}})";
  CHECK_THROWS_WITH_AS(stepmodel::parse_run_config(json),
                       doctest::Contains("unknown phase 'gemm.fwd'"), std::invalid_argument);
}

TEST_CASE("to_json writes the canonical resolved configuration that parse_run_config reads back") {
  RunConfig c;
  c.experiment = "e \"quoted\"";
  c.config_label = "delay=rank1:layer0:3ms";
  c.repetition = 4;
  c.seed = 18446744073709551615ull;  // the largest seed survives as an integer
  c.backend = "sim";
  c.ranks = 2;
  c.model.compute = "sleep";
  c.model.compute_scale = 1.15;
  c.model.schedule = {{"layer0", false, 0, -1, -1, 2.5, 0, 0, false, false},
                      {"allreduce", true, -1, -1, 0, 0.5, 0, 4096, true, false},
                      {"optimizer", false, -1, -1, -1, 1, 0.25, 0, false, true}};
  c.inject.delays.push_back({1, "layer0", -1, -1, 2, 5, 3.0, "spin"});
  c.inject.slowdowns.push_back({0, 1.5});
  c.inject.clock_skews.push_back({1, -2.5, 40});
  c.inject.faults.push_back({1, 3, "hang"});
  const std::string json = to_json(c);
  // Keys sorted, no whitespace, integers as integers, shortest doubles.
  CHECK(json.rfind(R"({"backend":"sim","config_label":"delay=rank1:layer0:3ms",)"
                   R"("experiment":"e \"quoted\"","inject":{"clock_skews":[{"drift_ppm":40,)"
                   R"("offset_ms":-2.5,"rank":1}],"delays":[{"layer":-1,"microbatch":-1,)"
                   R"("mode":"spin","ms":3,"phase":"layer0","rank":1,"step_first":2,)"
                   R"("step_last":5}],"faults":[{"kind":"hang","rank":1,"step":3}],)"
                   R"("slowdowns":[{"factor":1.5,"rank":0}]},"model":{"buckets":2,)",
                   0) == 0);
  CHECK(json.find(R"("schedule":[{"layer":0,"ms":2.5,"name":"layer0"},{"async":true,)"
                  R"("bytes":4096,"collective":true,"ms":0.5,"name":"allreduce","seq":0},)"
                  R"({"gap_ms":0.25,"ms":1,"name":"optimizer","waits":true}])") !=
        std::string::npos);
  CHECK(json.find(R"("ranks":2,"repetition":4,"seed":18446744073709551615,"steps":10,)"
                  R"("warmup_steps":1})") != std::string::npos);
  CHECK(json.find("instrument") == std::string::npos);  // only with instrument "pmpi"

  const RunConfig back = parse_run_config(json);
  CHECK(to_json(back) == json);
  CHECK(back.seed == c.seed);
  CHECK(back.model.compute_scale == 1.15);
  CHECK(back.model.schedule[1].bytes == 4096);
  CHECK(back.inject.faults[0].kind == "hang");
  // A configuration's text leaves out the run's fields; a hash's also the names.
  const std::string config_text = to_json(c, JsonFields::kConfiguration);
  CHECK(config_text.find("\"seed\"") == std::string::npos);
  CHECK(config_text.find("\"config_label\"") != std::string::npos);
  const std::string workload = to_json(c, JsonFields::kWorkload);
  CHECK(workload.find("\"experiment\"") == std::string::npos);
  CHECK(workload.find("\"repetition\"") == std::string::npos);

  c.instrument = "pmpi";
  c.step_rule = {"MPI_Allreduce", 2};
  c.model.schedule.clear();
  c.inject = {};
  CHECK(to_json(c).find(R"("instrument":"pmpi",)") != std::string::npos);
  CHECK(to_json(c).find(R"("step_rule":{"call":"MPI_Allreduce","every":2})") != std::string::npos);
  CHECK(parse_run_config(to_json(c)).step_rule.every == 2);
}

TEST_CASE("an import's echo is a resolved configuration with an import section and no model") {
  RunConfig c;
  c.experiment = "import";
  c.config_label = "imported";
  c.seed = 0;
  c.backend = "cuda";
  c.ranks = 2;
  c.warmup_steps = 0;
  c.steps = 1;
  c.import = ImportSection{"nsys", "nccl", true, 8, {"node \"a\".sqlite", "node-b.sqlite"}};
  const std::string json = to_json(c);
  CHECK(json == R"({"backend":"cuda","config_label":"imported","experiment":"import",)"
                R"("import":{"backend":"nccl","files":["node \"a\".sqlite","node-b.sqlite"],)"
                R"("format":"nsys","partial":true,"world_size":8},"inject":{"clock_skews":[],)"
                R"("delays":[],"faults":[],"slowdowns":[]},"ranks":2,"repetition":0,"seed":0,)"
                R"("steps":1,"warmup_steps":0})");
  const RunConfig back = parse_run_config(json, PhaseNames::kAny);
  REQUIRE(back.import.has_value());
  CHECK(back.import->files == c.import->files);
  CHECK(back.import->world_size == 8);
  CHECK(to_json(back) == json);
  // A workload's configuration has no import section.
  CHECK_FALSE(parse_run_config(R"({"backend":"cpu","ranks":2})").import.has_value());
  // The echo culprit wrote before the section was typed: the communication backend at the root.
  const RunConfig old = parse_run_config(
      R"({"experiment":"import","config_label":"imported","repetition":0,"seed":0,)"
      R"("backend":"gloo","ranks":2,"warmup_steps":2,"steps":6,"model":{},"inject":{},)"
      R"("import":{"format":"kineto","partial":false,"world_size":2,"files":["rank0.json"]}})",
      PhaseNames::kAny);
  REQUIRE(old.import.has_value());
  CHECK(old.backend == "cpu");
  CHECK(old.import->backend == "gloo");
  CHECK(old.import->format == "kineto");
  CHECK_THROWS_AS(parse_run_config(R"({"import":{"files":[3]}})"), std::invalid_argument);
  CHECK_THROWS_AS(parse_run_config(R"({"import":{"world_size":0}})"), std::invalid_argument);
}
