// Manifest loading, validation and planning: known good manifests give known plans; every
// invalid manifest in tests/data/manifests/invalid fails with its expected message.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "culprit/common/json.hpp"
#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"
#include "culprit/manifest/write.hpp"
#include "culprit/report/plan_report.hpp"
#include "manifest_round_trip.hpp"
#include "stepmodel/config.hpp"

namespace fs = std::filesystem;
using namespace culprit::manifest;
using culprit::format_number;
using culprit::Json;
using culprit::sha256_hex;

namespace {

// A simulated 2-rank experiment of 5 steps whose step is the measured schedule of `entries`
// (the items of the TOML array, one a line).
std::string measured_schedule(const std::string& entries) {
  return "[experiment]\nname = \"m\"\nsteps = 5\n[baseline]\nranks = 2\nbackend = \"sim\"\n"
         "[baseline.model]\ncompute = \"sleep\"\nschedule = [\n" +
         entries + "]\n";
}

const fs::path kData = CULPRIT_TEST_DATA;
const fs::path kExperiments = CULPRIT_EXPERIMENTS;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The message of the UsageError that loading and planning `text` throws ("" when it plans).
std::string error_of(const std::string& text, const std::string& name = "m.toml") {
  try {
    (void)make_plan(parse_manifest(text, name), 1);
  } catch (const culprit::UsageError& e) {
    return e.what();
  }
  return "";
}

// `text` with its first `from` replaced by `to` (the test fails when `from` is missing).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<std::string> labels(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& c : plan.configs) out.push_back(c.label);
  return out;
}

std::vector<int> config_order(const Plan& plan) {
  std::vector<int> out;
  for (const auto& r : plan.runs) out.push_back(r.config_index);
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("sha256 known answers (FIPS 180-4 examples and padding boundaries)") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  const std::vector<std::pair<int, std::string>> boundaries = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"}};
  for (const auto& [length, digest] : boundaries) {
    CAPTURE(length);
    CHECK(sha256_hex(std::string(static_cast<std::size_t>(length), 'x')) == digest);
  }
}

TEST_CASE("canonical JSON: sorted keys, fixed numbers, stable round trip") {
  const Json value(Json::Object{{"b", 1},
                                {"a", 2.5},
                                {"c", Json::Array{true, Json(), "x\"y"}},
                                {"d", 2e10},
                                {"e", 1.0},
                                {"f", -0.0}});
  const std::string text = value.dump();
  CHECK(text == R"({"a":2.5,"b":1,"c":[true,null,"x\"y"],"d":2e+10,"e":1,"f":0})");
  CHECK(Json::parse(text).dump() == text);
  CHECK(format_number(0.1) == "0.1");
  CHECK(format_number(1.15) == "1.15");
  CHECK(Json(std::uint64_t{18446744073709551615ULL}).dump() == "18446744073709551615");
}

TEST_CASE("minimal manifest: defaults, one configuration, name from the file") {
  const Manifest m = load_manifest((kData / "manifests/valid/minimal.toml").string());
  CHECK(m.settings.name == "minimal");
  CHECK(m.settings.repetitions == 5);
  CHECK(m.settings.warmup_steps == 2);
  CHECK(m.settings.steps == 20);
  CHECK(m.settings.alpha == doctest::Approx(0.05));
  CHECK(m.settings.margin == doctest::Approx(0.02));
  CHECK(m.settings.max_repetitions == 20);
  CHECK(m.settings.order == "interleaved");
  CHECK(m.settings.design == "one-factor-at-a-time");
  CHECK(m.settings.manifest_hash.size() == 64);
  const Plan plan = make_plan(m, 2);
  REQUIRE(plan.configs.size() == 1);
  CHECK(plan.configs[0].label == "baseline");
  CHECK(plan.configs[0].is_baseline);
  CHECK(plan.configs[0].level_json == "null");
  CHECK(plan.runs.size() == 5);
  // 5 repetitions: the plan warns that no CI for the median is possible.
  CHECK(std::any_of(plan.warnings.begin(), plan.warnings.end(),
                    [](const std::string& w) { return contains(w, "no confidence interval"); }));
}

TEST_CASE("instrument pmpi: step rule and compute> delays reach the resolved configuration") {
  const Plan plan = make_plan(load_manifest((kData / "manifests/valid/pmpi.toml").string()), 2);
  REQUIRE(plan.configs.size() == 3);
  for (const Configuration& c : plan.configs) {
    CAPTURE(c.label);
    CHECK(c.instrument == "pmpi");
    const stepmodel::RunConfig run = stepmodel::parse_run_config(c.resolved_json);
    CHECK(run.instrument == "pmpi");
    CHECK(run.step_rule.call == "MPI_Allreduce");
    CHECK(run.step_rule.every == 1);
  }
  const stepmodel::RunConfig wait = stepmodel::parse_run_config(plan.configs[2].resolved_json);
  REQUIRE(wait.inject.delays.size() == 1);
  CHECK(wait.inject.delays[0].phase == "compute>MPI_Wait");
  CHECK(wait.inject.delays[0].layer == 2);
  CHECK(wait.inject.delays[0].step_first == 50);
  CHECK(wait.inject.delays[0].mode == "spin");
  // A configuration without instrument keeps its resolved JSON (and hash) free of the new keys.
  const Plan plain = make_plan(load_manifest((kData / "manifests/valid/minimal.toml").string()), 2);
  CHECK_FALSE(contains(plain.configs[0].resolved_json, "instrument"));
  CHECK_FALSE(contains(plain.configs[0].resolved_json, "step_rule"));
  // The version with step_rule = "pcontrol" resolves to MPI_Pcontrol markers.
  const std::string text = read_text(kData / "manifests/valid/pmpi.toml");
  const std::string marked = replaced(text, "version = \"melt\"", "version = \"marked\"");
  const Plan pcontrol = make_plan(parse_manifest(marked, "pmpi.toml"), 2);
  CHECK(stepmodel::parse_run_config(pcontrol.configs[0].resolved_json).step_rule.call ==
        "MPI_Pcontrol");
}

TEST_CASE("ready-to-run experiments validate and plan") {
  SUBCASE("versions") {
    const Plan plan = make_plan(load_manifest((kExperiments / "versions.toml").string()), 2);
    CHECK(labels(plan) == std::vector<std::string>{"baseline", "version=v2", "version=v3"});
    CHECK(plan.configs[1].factor == "version");
    CHECK(plan.configs[1].level_json == "\"v2\"");
    CHECK(plan.runs.size() == 18);
    CHECK(plan.warnings.empty());
    // v3 does the same work as v1 but is another version: kept (an A/A check), other hash.
    CHECK(plan.configs[0].config_hash != plan.configs[2].config_hash);
    const auto v2 = stepmodel::parse_run_config(plan.configs[1].resolved_json);
    CHECK(v2.model.compute_scale == doctest::Approx(1.15));
    CHECK(v2.ranks == 2);
    CHECK(plan.estimated_seconds > 18);
    CHECK(plan.estimated_seconds < 18 * 5);
  }
  SUBCASE("ranks sweep warns about oversubscription on 2 cores only") {
    const Manifest m = load_manifest((kExperiments / "ranks-sweep.toml").string());
    const Plan small = make_plan(m, 2);
    CHECK(labels(small) == std::vector<std::string>{"baseline", "ranks=1", "ranks=4"});
    CHECK(std::count_if(small.warnings.begin(), small.warnings.end(), [](const std::string& w) {
            return contains(w, "'ranks=4'") && contains(w, "2 cores");
          }) == 1);
    const Plan big = make_plan(m, 16);
    CHECK(std::none_of(big.warnings.begin(), big.warnings.end(),
                       [](const std::string& w) { return contains(w, "cores"); }));
  }
  SUBCASE("straggler sweep labels its delays") {
    const Plan plan = make_plan(load_manifest((kExperiments / "straggler-sweep.toml").string()), 2);
    REQUIRE(plan.configs.size() == 5);
    CHECK(plan.configs[1].label == "delay=rank2:gemm.fwd:l1:mb0:5ms");
    CHECK(plan.configs[4].label == "delay=rank2:gemm.fwd:l1:mb0:40ms");
    CHECK(plan.configs[4].level_json ==
          R"({"layer":1,"microbatch":0,"mode":"sleep","ms":40,"phase":"gemm.fwd","rank":2,)"
          R"("step_first":-1,"step_last":-1})");
    // Sleep compute: 4 layers x 2 microbatches x 3 GEMMs of 2*256^3 FLOPs at 2e10 FLOP/s.
    CHECK(plan.configs[0].predicted_step_ms == doctest::Approx(40.3).epsilon(0.05));
    CHECK(plan.configs[4].predicted_step_ms - plan.configs[0].predicted_step_ms ==
          doctest::Approx(40).epsilon(0.01));
  }
}

TEST_CASE("sim backend with 64 ranks validates and plans without oversubscription warnings") {
  const Plan plan = make_plan(load_manifest((kData / "manifests/valid/sim-64.toml").string()), 2);
  CHECK(labels(plan) == std::vector<std::string>{"baseline", "version=v2"});
  CHECK(plan.configs[1].ranks == 64);
  CHECK(plan.runs.size() == 16);
  CHECK(plan.warnings.empty());
  const auto run = stepmodel::parse_run_config(run_config_json(plan, plan.runs[0]));
  CHECK(run.backend == "sim");
}

TEST_CASE("levels equal to the baseline are merged into it") {
  const Plan plan =
      make_plan(load_manifest((kData / "manifests/valid/model-sweep.toml").string()), 2);
  CHECK(labels(plan) == std::vector<std::string>{"baseline", "model.hidden=128", "model.hidden=512",
                                                 "model.overlap=true", "model.compute_scale=1.5"});
  CHECK(std::count_if(plan.warnings.begin(), plan.warnings.end(), [](const std::string& w) {
          return contains(w, "same configuration as 'baseline'");
        }) == 2);  // hidden = 256 and compute_scale = 1.0
  SUBCASE("sequential order: all runs of one configuration, then the next") {
    CHECK(plan.settings.order == "sequential");
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
      CHECK(plan.runs[i].config_index == static_cast<int>(i / 6));
      CHECK(plan.runs[i].repetition == static_cast<int>(i % 6));
      CHECK(plan.runs[i].position == static_cast<int>(i));
    }
  }
}

TEST_CASE("factorial design crosses the factors") {
  const Plan plan =
      make_plan(load_manifest((kData / "manifests/valid/factorial.toml").string()), 8);
  CHECK(labels(plan) == std::vector<std::string>{"baseline", "version=b", "ranks=1",
                                                 "version=b,ranks=1", "ranks=4",
                                                 "version=b,ranks=4"});
  CHECK(plan.configs[3].factor == "version,ranks");
  CHECK(plan.configs[3].level_json == R"({"ranks":1,"version":"b"})");
  CHECK(plan.runs.size() == 36);
}

TEST_CASE("interleaved order: seeded balanced blocks") {
  const std::string text = read_text(kExperiments / "straggler-sweep.toml");
  const Plan plan = make_plan(parse_manifest(text, "s.toml"), 2);
  const int configs = static_cast<int>(plan.configs.size());
  REQUIRE(plan.runs.size() == static_cast<std::size_t>(configs * 6));
  for (int block = 0; block < 6; ++block) {
    std::set<int> seen;
    for (int i = 0; i < configs; ++i) {
      const auto& run = plan.runs[static_cast<std::size_t>(block * configs + i)];
      seen.insert(run.config_index);
      CHECK(run.repetition == block);
      CHECK(run.position == block * configs + i);
    }
    CHECK(seen.size() == static_cast<std::size_t>(configs));  // every configuration once
  }
  // Shuffled, not in declaration order in every block.
  std::vector<int> declared;
  for (int b = 0; b < 6; ++b) {
    for (int i = 0; i < configs; ++i) declared.push_back(i);
  }
  CHECK(config_order(plan) != declared);

  // Deterministic: the same seed gives the same order and seeds; another seed another order.
  const Plan again = make_plan(parse_manifest(text, "s.toml"), 2);
  CHECK(config_order(again) == config_order(plan));
  for (std::size_t i = 0; i < plan.runs.size(); ++i) CHECK(again.runs[i].seed == plan.runs[i].seed);
  const std::string reseeded = replaced(text, "seed = 11", "seed = 12");
  CHECK(config_order(make_plan(parse_manifest(reseeded, "s.toml"), 2)) != config_order(plan));

  // Seeds: distinct per run, below 2^53.
  std::set<std::uint64_t> seeds;
  for (const auto& run : plan.runs) {
    seeds.insert(run.seed);
    CHECK(run.seed < (std::uint64_t{1} << 53));
  }
  CHECK(seeds.size() == plan.runs.size());
}

TEST_CASE("append_blocks continues repetitions in balanced blocks") {
  Plan plan = make_plan(load_manifest((kExperiments / "versions.toml").string()), 2);
  const auto before = plan.runs.size();
  const double cost = plan.estimated_seconds;
  append_blocks(plan, 2, {0, 1});
  REQUIRE(plan.runs.size() == before + 4);
  std::set<int> first_block = {plan.runs[before].config_index, plan.runs[before + 1].config_index};
  CHECK(first_block == std::set<int>{0, 1});
  for (std::size_t i = before; i < plan.runs.size(); ++i) {
    CHECK(plan.runs[i].repetition == 6 + static_cast<int>((i - before) / 2));
    CHECK(plan.runs[i].position == static_cast<int>(i));
  }
  CHECK(plan.estimated_seconds > cost);
  CHECK_THROWS_AS(append_blocks(plan, 1, {7}), std::out_of_range);
}

TEST_CASE("config_hash depends on what runs, not on names, layout or number spelling") {
  const std::string base = R"(
[experiment]
name = "a"
[baseline]
ranks = 2
[baseline.model]
compute_scale = 1.0
hidden = 128
)";
  const std::string same = R"(
# another layout, another experiment name, 1 instead of 1.0, keys in another order
[baseline.model]
hidden = 128
compute_scale = 1
[baseline]
ranks = 2
[experiment]
name = "b"
)";
  const Plan a = make_plan(parse_manifest(base, "a.toml"), 2);
  const Plan b = make_plan(parse_manifest(same, "b.toml"), 2);
  CHECK(a.configs[0].config_hash == b.configs[0].config_hash);
  CHECK(a.settings.manifest_hash != b.settings.manifest_hash);
  const std::string other = replaced(base, "hidden = 128", "hidden = 129");
  CHECK(make_plan(parse_manifest(other, "c.toml"), 2).configs[0].config_hash !=
        a.configs[0].config_hash);
  // The resolved JSON is canonical: sorted keys, so it starts with "backend".
  CHECK(a.configs[0].resolved_json.rfind(R"({"backend":"cpu","config_label":"baseline",)", 0) == 0);
}

TEST_CASE("run_config_json adds repetition and seed, and the workload parser accepts it") {
  const Plan plan = make_plan(load_manifest((kData / "manifests/valid/all-keys.toml").string()), 2);
  CHECK(labels(plan) == std::vector<std::string>{"baseline", "version=v2",
                                                 "delay=rank0:allreduce:l1:s2-6:3ms",
                                                 "delay=rank3:gemm.bwd.wgrad:mb2:s4:2.5ms:spin"});
  for (const auto& run : plan.runs) {
    const auto parsed = stepmodel::parse_run_config(run_config_json(plan, run));
    CHECK(parsed.repetition == run.repetition);
    CHECK(parsed.seed == run.seed);
    CHECK(parsed.config_label == plan.configs[run.config_index].label);
    CHECK(parsed.experiment == "all-keys");
  }
  const auto v2 = stepmodel::parse_run_config(plan.configs[1].resolved_json);
  CHECK(v2.model.compute_scale == doctest::Approx(1.05));
  REQUIRE(v2.inject.delays.size() == 1);
  CHECK(v2.inject.delays[0].phase == "optimizer");
  CHECK(v2.inject.slowdowns.size() == 1);
  CHECK(v2.inject.clock_skews.size() == 1);
  CHECK(v2.inject.faults.size() == 1);
  CHECK(plan.configs[1].command ==
        std::vector<std::string>{"./v2/culprit-step", "--config={config}", "--out={out}"});
  CHECK(plan.configs[1].env.at("CULPRIT_TAG") == "v2");
  const auto delay = stepmodel::parse_run_config(plan.configs[2].resolved_json);
  REQUIRE(delay.inject.delays.size() == 1);
  CHECK(delay.inject.delays[0].step_first == 2);
  CHECK(delay.inject.delays[0].step_last == 6);

  const Manifest m = load_manifest((kData / "manifests/valid/all-keys.toml").string());
  REQUIRE(m.bisect.has_value());
  REQUIRE(m.bisect->git.has_value());
  CHECK(m.bisect->git->bad == "HEAD");
  CHECK(m.bisect->git->build == std::vector<std::string>{"cmake", "--build", "build"});
  CHECK(m.settings.db == "all-keys.db");
  CHECK(m.settings.timeout_s == doctest::Approx(300));
}

TEST_CASE("plan JSON has the keys scripts read") {
  const Plan plan = make_plan(load_manifest((kExperiments / "versions.toml").string()), 2);
  const Json doc = Json::parse(culprit::report::plan_json(plan));
  const auto& root = doc.object();
  for (const char* key : {"configs", "runs", "warnings", "estimated_s", "experiment"}) {
    CHECK(root.contains(key));
  }
  const std::string text = culprit::report::plan_json(plan);
  CHECK(contains(text, R"({"backend":"cpu","baseline":true,)"));
  CHECK(contains(text, R"("factor":"version",)"));
  CHECK(contains(text, R"("level":"v2",)"));
  CHECK(contains(culprit::report::plan_text(plan), "version=v3"));
}

TEST_CASE("validation: several problems are reported together, one per line") {
  const std::string message = error_of(R"([experiment]
repetitons = 6
steps = 0
[stats]
alpha = 2
)");
  CHECK(std::count(message.begin(), message.end(), '\n') == 2);
  CHECK(contains(message, "m.toml:2:1: key 'experiment.repetitons'"));
  CHECK(contains(message, "m.toml:3:9: key 'experiment.steps'"));
  CHECK(contains(message, "m.toml:5:9: key 'stats.alpha'"));
}

TEST_CASE("validation: a delay must exist on every rank count it applies to") {
  const std::string ok = R"([baseline]
ranks = 4
[[baseline.inject.delays]]
rank = 1
phase = "gemm.fwd"
ms = 5
[[vary]]
factor = "ranks"
levels = [2, 8]
)";
  CHECK(error_of(ok).empty());
  const std::string bad = replaced(ok, "levels = [2, 8]", "levels = [1, 8]");
  CHECK(contains(error_of(bad), "in configuration 'ranks=1'"));
}

TEST_CASE("a custom program's region names are delay phases; culprit-step's phases stay checked") {
  const std::string custom = R"([baseline]
version = "app"
ranks = 2
[versions.app]
command = ["python3", "train.py", "--config", "{config}"]
[versions.step]
[[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "layer2", ms = 30 }]
)";
  CHECK(error_of(custom).empty());
  const Plan plan = make_plan(parse_manifest(custom, "m.toml"), 2);
  REQUIRE(plan.configs.size() == 2);
  CHECK(plan.configs[1].label == "delay=rank1:layer2:30ms");
  CHECK(contains(plan.configs[1].resolved_json, R"("phase":"layer2")"));

  SUBCASE("a version's own inject follows its own command") {
    const std::string inject = "inject = { delays = [{ rank = 0, phase = \"layer1\", ms = 1 }] }";
    CHECK(contains(error_of(replaced(custom, "[versions.step]", "[versions.step]\n" + inject)),
                   "versions.step.inject.delays[0].phase"));
    CHECK(error_of(replaced(custom, "command = [", inject + "\ncommand = [")).empty());
  }
  SUBCASE("the built-in culprit-step still refuses a name it does not have") {
    const std::string message =
        error_of(replaced(custom, "version = \"app\"", "version = \"step\""));
    CHECK(contains(message, "vary[0].levels[0].phase"));
    CHECK(contains(message, "\"gemm.fwd\""));
  }
  SUBCASE("a factorial cross with the built-in version is refused per configuration") {
    const std::string message =
        error_of(replaced(custom, "ranks = 2", "ranks = 2\n[experiment]\ndesign = \"factorial\"") +
                 "[[vary]]\nfactor = \"version\"\nlevels = [\"step\"]\n");
    CHECK(contains(message, "a phase of culprit-step"));
    CHECK(contains(message, "need a version with its own command"));
  }
  SUBCASE("control characters in a region name are refused") {
    CHECK(contains(error_of(replaced(custom, "\"layer2\"", "\"lay\\u0001er\"")),
                   "without control characters"));
  }
}

TEST_CASE("item 9 (#38): braces that are no placeholder pass; {{ }} escape; a typo is refused") {
  // Hand-written manifests: JSON, awk and a shell's ${VAR} in a version's command.
  const std::string ok = R"([baseline]
version = "app"
ranks = 2
[versions.app]
command = ["sh", "-c", "echo ${HOME} {{config}} | awk '{print $1}'", "{\"lr\": 0.1}", "{config}"]
)";
  CHECK(error_of(ok).empty());
  const Plan plan = make_plan(parse_manifest(ok, "m.toml"), 2);
  CHECK(plan.configs[0].command[2] == "echo ${HOME} {{config}} | awk '{print $1}'");
  const std::string typo = replaced(ok, "\"{config}\"]", "\"{conifg}\"]");
  CHECK(contains(error_of(typo), "'{conifg}'"));
  CHECK(contains(error_of(typo), "write it twice ({{conifg}})"));
  CHECK(error_of(replaced(ok, "\"{config}\"]", "\"{{conifg}}\"]")).empty());
}

TEST_CASE("experiments/torch-ddp.toml validates: versions with a command, region-name delays") {
  const Plan plan = make_plan(load_manifest((kExperiments / "torch-ddp.toml").string()), 2);
  CHECK(labels(plan) ==
        std::vector<std::string>{"baseline", "version=v2", "delay=rank1:layer2:30ms",
                                 "delay=rank0:layer1:15ms", "delay=rank1:optimizer:10ms"});
  CHECK(plan.configs[0].command.at(1) == "examples/torch/ddp_train.py");
  CHECK(contains(plan.configs[2].resolved_json, R"("phase":"layer2")"));
}

TEST_CASE("invalid manifest corpus: every file fails with its expected message") {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kData / "manifests/invalid")) {
    if (entry.path().extension() != ".toml") continue;
    ++cases;
    const fs::path expect = fs::path(entry.path()).replace_extension(".expect");
    CAPTURE(entry.path().filename().string());
    REQUIRE(fs::exists(expect));
    std::string message;
    try {
      (void)make_plan(load_manifest(entry.path().string()), 1);
    } catch (const culprit::UsageError& e) {
      message = e.what();
    }
    REQUIRE_MESSAGE(!message.empty(), "the manifest planned but should not");
    CAPTURE(message);
    std::istringstream lines(read_text(expect));
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) CHECK(contains(message, line));
    }
  }
  CHECK(cases >= 20);
}

TEST_CASE("a missing file is a usage error naming the path") {
  CHECK_THROWS_WITH_AS(load_manifest("/nonexistent/x.toml"),
                       doctest::Contains("/nonexistent/x.toml: cannot read the manifest"),
                       culprit::UsageError);
  CHECK_THROWS_WITH_AS(load_manifest(kData.string()), doctest::Contains("is a directory"),
                       culprit::UsageError);
}

TEST_CASE("a measured schedule: region names become delay phases, rank \"all\", reduced_from") {
  const std::string base = measured_schedule(R"(  { name = "layer0", ms = 2.5 },
  { name = "layer2", ms = 1.5, gap_ms = 0.1 },
  { name = "allreduce", collective = true, seq = 0, bytes = 4096, ms = 0.5 },
)") + R"([reduced_from]
baseline_run = 1
candidate_run = 2
baseline_median_ms = 5
candidate_median_ms = 8
delta_ms = 3
)";
  const Manifest ok = parse_manifest(base + R"([[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "layer2", ms = 3 }, { rank = "all", phase = "layer0", ms = 1 }]
)",
                                     "m.toml");
  REQUIRE(ok.baseline.schedule.size() == 3);
  CHECK(ok.baseline.schedule[1].gap_ms == doctest::Approx(0.1));
  REQUIRE(ok.reduced_from.has_value());
  CHECK(ok.reduced_from->delta_ms == doctest::Approx(3.0));
  const Plan plan = make_plan(ok, 2);
  REQUIRE(plan.configs.size() == 3);
  const stepmodel::RunConfig resolved = stepmodel::parse_run_config(plan.configs[2].resolved_json);
  CHECK(resolved.model.schedule.size() == 3);
  CHECK(resolved.inject.delays.front().rank == stepmodel::kEveryRank);
  CHECK(make_plan(ok).reduced_from->candidate_run == 2);  // stored with the experiment

  // A GEMM phase is not a phase of this step; the message suggests the schedule's names.
  const std::string wrong = error_of(base + R"([[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "layer3", ms = 3 }]
)");
  CHECK(wrong.find("vary[0].levels[0].phase") != std::string::npos);
  CHECK(wrong.find("did you mean \"layer0\"") != std::string::npos);
  // Two swapped letters cost one edit; a value far longer than every choice gets no suggestion
  // (and no comparison with them).
  const std::string swapped = error_of(base + R"([[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "lyaer0", ms = 3 }]
)");
  CHECK(swapped.find("did you mean \"layer0\"") != std::string::npos);
  const std::string long_phase = error_of(base +
                                          "[[vary]]\nfactor = \"delay\"\nlevels = [{ rank = 1, "
                                          "phase = \"" +
                                          std::string(20000, 'l') + "\", ms = 3 }]\n");
  CHECK(long_phase.find("vary[0].levels[0].phase") != std::string::npos);
  CHECK(long_phase.find("did you mean") == std::string::npos);
  // A collective without seq, and a schedule on a cpu backend that computes GEMMs.
  CHECK(error_of(R"([baseline]
backend = "sim"
[baseline.model]
schedule = [{ name = "allreduce", collective = true, ms = 1 }]
)")
            .find("baseline.model.schedule[0].seq") != std::string::npos);
  CHECK(error_of(R"([baseline]
backend = "cpu"
[baseline.model]
schedule = [{ name = "layer0", ms = 1 }]
)")
            .find("compute = \"sleep\"") != std::string::npos);
}

TEST_CASE("a measured schedule of a PMPI run: its compute>CALL names are delay phases") {
  // What `culprit reduce` writes for a run measured under the interposer: the simulator replays
  // the measured names, so a delay of one needs no instrument "pmpi" (it was refused).
  const std::string base =
      measured_schedule(R"(  { name = "compute>MPI_Allreduce", layer = 0, ms = 0.5 },
  { name = "MPI_Allreduce", collective = true, seq = 0, bytes = 4, ms = 0.01 },
)");
  const Manifest ok = parse_manifest(base + R"([[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "compute>MPI_Allreduce", layer = 0, ms = 10 }]
)",
                                     "m.toml");
  const Plan plan = make_plan(ok, 1);
  REQUIRE(plan.configs.size() == 2);
  const stepmodel::RunConfig resolved = stepmodel::parse_run_config(plan.configs[1].resolved_json);
  REQUIRE(resolved.inject.delays.size() == 1);
  CHECK(resolved.inject.delays[0].phase == "compute>MPI_Allreduce");
  CHECK_FALSE(stepmodel::needs_pmpi(resolved.model, "compute>MPI_Allreduce"));
  // A PMPI phase the schedule does not name still needs the interposer, in the manifest and in
  // the resolved configuration the workload reads.
  CHECK(stepmodel::needs_pmpi(resolved.model, "compute>MPI_Wait"));
  CHECK_FALSE(stepmodel::needs_pmpi(resolved.model, "layer0"));
  const std::string wrong = error_of(base + R"([[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "compute>MPI_Wait", ms = 10 }]
)");
  CHECK(wrong.find("vary[0].levels[0].phase") != std::string::npos);
  CHECK(wrong.find("expected one of \"compute>MPI_Allreduce\", \"MPI_Allreduce\"") !=
        std::string::npos);
  CHECK(wrong.find("write for example phase = \"compute>MPI_Allreduce\"") != std::string::npos);
}

TEST_CASE("[launch]: launcher, ranks_per_node, binding and extra_args are read and validated") {
  const Manifest m = parse_manifest(R"([launch]
launcher = "srun"
ranks_per_node = 4
binding = "core"
extra_args = ["--mpi=pmix", "--exclusive"]
)",
                                    "l.toml");
  CHECK(m.settings.launch.launcher == "srun");
  CHECK(m.settings.launch.ranks_per_node == 4);
  CHECK(m.settings.launch.binding == "core");
  CHECK(m.settings.launch.extra_args == std::vector<std::string>{"--mpi=pmix", "--exclusive"});
  // Not set: empty, so the command line and the environment decide.
  const Manifest plain = parse_manifest("[baseline]\nranks = 2\n", "p.toml");
  CHECK(plain.settings.launch.launcher.empty());
  CHECK(plain.settings.launch.binding.empty());
  // The launch settings are not part of a configuration: mpirun and srun sweeps compare.
  CHECK(make_plan(m, 1).configs[0].config_hash == make_plan(plain, 1).configs[0].config_hash);

  const std::string message = error_of(R"([launch]
launcher = "ssh"
ranks_per_node = 0
binding = "everywhere"
extra_args = "--mpi=pmix"
mpi = "pmix"
)");
  CHECK(contains(message, "m.toml:2:12: key 'launch.launcher'"));
  CHECK(contains(message, "m.toml:3:18: key 'launch.ranks_per_node'"));
  CHECK(contains(message, "m.toml:4:11: key 'launch.binding'"));
  CHECK(contains(message, "m.toml:5:14: key 'launch.extra_args'"));
  CHECK(contains(message, "split it into words"));
  CHECK(contains(message, "m.toml:6:1: key 'launch.mpi'"));
  CHECK(contains(error_of("[launch]\nextra_args = [\"-x\", 3]\n"), "key 'launch.extra_args[1]'"));
  CHECK(contains(error_of("launcher = \"srun\"\n"), "move it under [launch]"));
}

// The canonical resolved JSON is what configuration hashes cover: a store made by an earlier
// culprit must see the same configurations again. tests/data/manifests/resolved/ holds, for each
// manifest, every configuration's hash and resolved JSON and the first run's configuration file
// as main wrote them (CULPRIT_UPDATE_RESOLVED=1 rewrites them, for a deliberate format change).
TEST_CASE("the resolved JSON and the configuration hashes of existing manifests do not change") {
  const std::vector<fs::path> manifests = {
      kExperiments / "reference-64.toml",         kExperiments / "straggler-sweep.toml",
      kExperiments / "lammps-melt.toml",          kData / "manifests/valid/all-keys.toml",
      kData / "manifests/valid/factorial.toml",   kData / "manifests/valid/pmpi.toml",
      kData / "manifests/valid/model-sweep.toml",
  };
  for (const fs::path& path : manifests) {
    CAPTURE(path);
    const Plan plan = make_plan(load_manifest(path.string()), 4);
    std::string text;
    for (const Configuration& c : plan.configs) {
      text += c.label + " " + c.config_hash + "\n" + c.resolved_json + "\n";
    }
    text += "run " + run_config_json(plan, plan.runs.at(1)) + "\n";
    const fs::path golden = kData / "manifests/resolved" / (path.stem().string() + ".txt");
    if (std::getenv("CULPRIT_UPDATE_RESOLVED") != nullptr) {
      fs::create_directories(golden.parent_path());
      std::ofstream(golden, std::ios::binary) << text;
    }
    CHECK(text == read_text(golden));
  }
}

TEST_CASE("write_manifest: every manifest of the repository parses back to itself") {
  int files = 0;
  for (const fs::path& dir : {kExperiments, kData / "manifests/valid"}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".toml") continue;
      CAPTURE(entry.path());
      testing::check_round_trip(load_manifest(entry.path().string()));
      ++files;
    }
  }
  CHECK(files >= 13);  // experiments/ (7) and tests/data/manifests/valid (6)
}

TEST_CASE("write_manifest: values that read back exactly, names that need quoting") {
  Manifest m = parse_manifest(R"([experiment]
name = "round \"trip\""
[baseline]
ranks = 4
backend = "sim"
[baseline.model]
compute = "sleep"
noise_cv = 0.1
schedule = [{ name = "la\"yer\\0", ms = 0.000001, gap_ms = 1e-7 },
            { name = "allreduce", collective = true, seq = 0, bytes = 1024, ms = 2, async = true },
            { name = "optimizer", ms = 3, waits = true }]
[versions."v1.0+x"]
env = { OMP_NUM_THREADS = "1" }
model = { compute_scale = 1.0000000000000002 }
inject = { delays = [{ rank = "all", phase = "allreduce", step_first = 3, ms = 1.5 }] }
[[vary]]
factor = "version"
levels = ["v1.0+x"]
[[vary]]
factor = "delay"
levels = [{ rank = 1, phase = "la\"yer\\0", steps = [2, 4], ms = 1234567.125 }]
)",
                              "hand-written.toml");
  testing::check_round_trip(m);
  const std::string text = write_manifest(m);
  CHECK(text.find("ms = 0.000001,") != std::string::npos);
  CHECK(text.find("gap_ms = 0.0000001") != std::string::npos);
  CHECK(text.find("compute_scale = 1.0000000000000002") != std::string::npos);
  CHECK(text.find("name = \"la\\\"yer\\\\0\"") != std::string::npos);
  CHECK(text.find("ms = 1234567.125, mode") != std::string::npos);
  CHECK(text.find("[versions.\"v1.0+x\"]") != std::string::npos);
  CHECK(text.find("step_first = 3, ms = 1.5") != std::string::npos);
}

TEST_CASE("write_manifest: comments at their paths, one line each, and the version order") {
  Manifest m = load_manifest((kExperiments / "versions.toml").string());
  ManifestLayout layout;
  layout.header = {"first line", "", "a\nnewline"};
  layout.before["stats.alpha"] = {"above alpha"};
  layout.after["baseline.ranks"] = "after ranks";
  layout.version_order = {"v3", "v1"};
  const std::string text = write_manifest(m, layout);
  CHECK(text.starts_with("# first line\n#\n# a?newline\n\n[experiment]\n"));
  CHECK(text.find("[stats]\n# above alpha\nalpha = ") != std::string::npos);
  CHECK(text.find("  # after ranks\n") != std::string::npos);
  const auto v3 = text.find("[versions.\"v3\"]");
  const auto v1 = text.find("[versions.\"v1\"]");
  const auto v2 = text.find("[versions.\"v2\"]");
  REQUIRE(v3 != std::string::npos);
  CHECK(v3 < v1);
  CHECK(v1 < v2);
  testing::check_round_trip(m, layout);
}
