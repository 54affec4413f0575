// report: `culprit compare` documents carry every figure of a hand-built comparison under the
// keys scripts read, with null intervals where the samples are too small for a CI.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "culprit/analysis/attribution_score.hpp"
#include "culprit/report/attribution_report.hpp"
#include "culprit/report/compare_report.hpp"
#include "culprit/report/document.hpp"
#include "culprit/report/explain_report.hpp"
#include "culprit/report/html_report.hpp"
#include "culprit/report/store_listings.hpp"
#include "culprit/report/terminal_text.hpp"
#include "culprit/report/validate_report.hpp"

using namespace culprit;

namespace {

stats::Summary summary(int n, double median, bool has_ci, double lo, double hi) {
  return {.n = n,
          .median = median,
          .has_ci = has_ci,
          .ci_lo = lo,
          .ci_hi = hi,
          .ci_level = has_ci ? 0.96875 : 0.25,
          .iqr = 4.5,
          .robust_cv = 0.015};
}

// Six runs a side: intervals everywhere; baseline 400 ms, candidate 440 ms (+10 %).
stats::StoredComparison six_runs_a_side() {
  stats::StoredComparison sc;
  sc.baseline_label = "baseline";
  sc.candidate_label = "version=v1.5";
  sc.factor = "version";
  sc.baseline_ms = {398, 399, 400, 400, 401, 402};
  sc.candidate_ms = {438, 439, 440, 440, 441, 442};
  sc.baseline = summary(6, 400, true, 398, 402);
  sc.candidate = summary(6, 440, true, 438, 442);
  stats::Comparison& c = sc.comparison;
  c.n_baseline = 6;
  c.n_candidate = 6;
  c.shift = 40;
  c.shift_lo = 38;
  c.shift_hi = 42;
  c.has_ci = true;
  c.relative = 0.1;
  c.relative_lo = 0.095;
  c.relative_hi = 0.105;
  c.p_value = 0.0021645021645021645;
  c.mde_relative = 0.02;
  c.alpha = 0.025;
  c.margin = 0.02;
  c.method = stats::Method::kExact;
  c.verdict = stats::Verdict::kRegressed;
  return sc;
}

// Three runs a side: no CI of the medians nor of the shift.
stats::StoredComparison three_runs_a_side() {
  stats::StoredComparison sc = six_runs_a_side();
  sc.candidate_label = "version=v1.6";
  sc.baseline_ms = {399, 400, 401};
  sc.candidate_ms = {439, 440, 441};
  sc.baseline = summary(3, 400, false, 399, 401);
  sc.candidate = summary(3, 440, false, 439, 441);
  sc.comparison.n_baseline = 3;
  sc.comparison.n_candidate = 3;
  sc.comparison.has_ci = false;
  sc.comparison.p_value = 0.1;
  sc.comparison.verdict = stats::Verdict::kInconclusive;
  return sc;
}

double number(simdjson::dom::element e) {
  return double(e);
}

std::vector<double> numbers(simdjson::dom::element e) {
  std::vector<double> out;
  for (simdjson::dom::element item : simdjson::dom::array(e)) out.push_back(double(item));
  return out;
}

void check_side(simdjson::dom::element side, std::string_view label, int n, double median,
                const std::vector<double>& samples) {
  CHECK(std::string_view(side["label"]) == label);
  CHECK(int64_t(side["n"]) == n);
  CHECK(number(side["median_ms"]) == median);
  CHECK(numbers(side["samples_ms"]) == samples);
}

// What attribute's run culprit says when it blames the code: rank, phase, layer, excess.
analysis::RunCulprit blamed_on(int rank, const std::string& phase, int layer, double excess_ms) {
  analysis::RunCulprit b;
  b.found = true;
  b.rank = rank;
  b.phase = phase;
  b.layer = layer;
  b.excess_ms = excess_ms;
  return b;
}

// A stored run as `culprit runs` lists it: ok, with its median step.
storage::RunSummary ok_run(std::int64_t id, const std::string& experiment,
                           const std::string& config, double median_ms) {
  return {.id = id,
          .experiment = experiment,
          .config = config,
          .status = "ok",
          .median_ms = median_ms,
          .started_at = {},
          .error = {}};
}

}  // namespace

TEST_CASE("compare JSON: every figure under its key, intervals as [lo, hi]") {
  stats::StoredComparisons result;
  result.experiment = "ref \"64\"";
  result.comparisons = {six_runs_a_side()};
  result.skipped = {{"version=v1.7", "no successful runs"}};
  const std::string text = report::compare_json(result);

  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(text);
  CHECK(std::string_view(doc["experiment"]) == "ref \"64\"");
  simdjson::dom::array comparisons = doc["comparisons"];
  REQUIRE(comparisons.size() == 1);
  const simdjson::dom::element c = comparisons.at(0);
  check_side(c["baseline"], "baseline", 6, 400, {398, 399, 400, 400, 401, 402});
  CHECK(numbers(c["baseline"]["ci_ms"]) == std::vector<double>{398, 402});
  CHECK(number(c["baseline"]["ci_level"]) == 0.96875);
  check_side(c["candidate"], "version=v1.5", 6, 440, {438, 439, 440, 440, 441, 442});
  CHECK(std::string_view(c["factor"]) == "version");
  CHECK(number(c["shift_ms"]) == 40);
  CHECK(numbers(c["shift_ci_ms"]) == std::vector<double>{38, 42});
  CHECK(number(c["relative"]) == 0.1);
  CHECK(numbers(c["relative_ci"]) == std::vector<double>{0.095, 0.105});
  // Shortest round-trip form: the p-value comes back bit for bit.
  CHECK(number(c["p_value"]) == 0.0021645021645021645);
  CHECK(std::string_view(c["verdict"]) == "regressed");
  CHECK(number(c["alpha"]) == 0.025);
  CHECK(std::string_view(c["method"]) == "exact");
  CHECK(bool(c["ties"]) == false);
  simdjson::dom::array skipped = doc["skipped"];
  REQUIRE(skipped.size() == 1);
  CHECK(std::string_view(skipped.at(0)["label"]) == "version=v1.7");
  CHECK(std::string_view(skipped.at(0)["reason"]) == "no successful runs");
}

TEST_CASE("compare JSON: null intervals when n < 6") {
  const std::string text = report::compare_pair_json("small", three_runs_a_side());
  simdjson::dom::parser parser;
  const simdjson::dom::element c = parser.parse(text);
  CHECK(std::string_view(c["experiment"]) == "small");
  check_side(c["baseline"], "baseline", 3, 400, {399, 400, 401});
  CHECK(c["baseline"]["ci_ms"].is_null());
  CHECK(c["baseline"]["ci_level"].is_null());
  CHECK(c["candidate"]["ci_ms"].is_null());
  CHECK(c["shift_ci_ms"].is_null());
  CHECK(c["relative_ci"].is_null());
  CHECK(number(c["shift_ms"]) == 40);
  CHECK(number(c["p_value"]) == 0.1);
  CHECK(std::string_view(c["verdict"]) == "inconclusive");
  // The pair document is the comparison itself, not a list.
  CHECK(c["comparisons"].error() == simdjson::NO_SUCH_FIELD);
}

TEST_CASE("compare table: each configuration once, notes for missing CIs and skipped ones") {
  stats::StoredComparisons result;
  result.experiment = "small";
  result.comparisons = {six_runs_a_side(), three_runs_a_side()};
  result.skipped = {{"version=v1.7", "no successful runs"}};
  report::CompareSettings settings;
  settings.alpha = 0.05;
  settings.looks = 2;
  settings.alpha_per_comparison = 0.025;
  settings.margin = 0.02;
  settings.source = "as the experiment ran";
  const std::string text = report::compare_text(result, settings);

  CHECK(text.find("experiment 'small': alpha 0.025 per comparison (0.05 split over 2 looks), "
                  "margin 2 %  [as the experiment ran]\n") == 0);
  // The baseline row appears once although both comparisons share it.
  const auto first = text.find("\nbaseline ");
  REQUIRE(first != std::string::npos);
  CHECK(text.find("\nbaseline ", first + 1) == std::string::npos);
  CHECK(text.find("[398.00, 402.00]") != std::string::npos);
  CHECK(text.find("n < 6: no CI") != std::string::npos);
  CHECK(text.find("+40.00 [+38.00, +42.00]") != std::string::npos);
  CHECK(text.find("+10.00% [+9.50, +10.50]") != std::string::npos);
  CHECK(text.find("+40.00 [no CI]") != std::string::npos);
  CHECK(text.find("note: version=v1.6: 3 vs 3 runs are too few for a shift CI at alpha 0.025\n") !=
        std::string::npos);
  CHECK(text.find("note: version=v1.7: not compared (no successful runs)\n") != std::string::npos);
}

TEST_CASE("compare table: a label longer than 32 characters widens its column") {
  stats::StoredComparison sc = three_runs_a_side();
  sc.candidate_label = "delay=rank1:compute>MPI_Allreduce:10ms";  // 38, LAMMPS under PMPI
  stats::StoredComparisons result;
  result.experiment = "lammps-melt";
  result.comparisons = {sc};
  const std::string text = report::compare_text(result, report::CompareSettings{});
  CHECK(text.find("\nconfiguration" + std::string(29, ' ') + "n   median ms") != std::string::npos);
  CHECK(text.find("\ndelay=rank1:compute>MPI_Allreduce:10ms    3      440.00  n < 6: no CI") !=
        std::string::npos);
  CHECK(text.find("\ncandidate vs baseline" + std::string(18, ' ') + "shift ms [CI]") !=
        std::string::npos);
  CHECK(text.find("\ndelay=rank1:compute>MPI_Allreduce:10ms +40.00 [no CI] ") != std::string::npos);
}

TEST_CASE("compare with one run a side: CV and MDE are n/a in the table and null in JSON") {
  stats::StoredComparison sc = three_runs_a_side();
  sc.baseline_ms = {400};
  sc.candidate_ms = {440};
  sc.baseline = stats::summarize(sc.baseline_ms);
  sc.candidate = stats::summarize(sc.candidate_ms);
  sc.comparison.n_baseline = 1;
  sc.comparison.n_candidate = 1;
  sc.comparison.mde_relative.reset();
  stats::StoredComparisons result;
  result.experiment = "one";
  result.comparisons = {sc};
  const std::string text = report::compare_text(result, report::CompareSettings{});
  CHECK(text.find("      400.00  n < 6: no CI                 n/a\n") != std::string::npos);
  CHECK(text.find("inconclusive     n/a\n") != std::string::npos);
  CHECK(text.find(" 0.00%") == std::string::npos);  // the old rendering of "no spread"
  CHECK(text.find("note: version=v1.6: 1 vs 1 runs are too few") != std::string::npos);
  simdjson::dom::parser parser;
  const simdjson::dom::element c = parser.parse(report::compare_pair_json("one", sc));
  CHECK(c["mde_relative"].is_null());
  CHECK(c["baseline"]["robust_cv"].is_null());
}

// Hand-written: the six-run comparison judged in an experiment whose name holds an escape
// sequence, as a terminal would receive it from a store.
TEST_CASE("documents: only the format asked for, the final newline report's own") {
  stats::Judgement judged;
  judged.comparisons.experiment = "small\x1b[2J";
  judged.comparisons.comparisons = {six_runs_a_side()};
  judged.settings.alpha = 0.05;
  judged.settings.looks = 1;
  judged.settings.alpha_per_comparison = 0.05;
  judged.settings.margin = 0.02;

  const std::string json = report::compare_document(judged, false, report::Format::kJson);
  CHECK(json == report::compare_json(judged.comparisons) + "\n");
  CHECK(json.find('\x1b') == std::string::npos);  // JSON escapes it: \u001b
  simdjson::dom::parser parser;
  CHECK(std::string_view(parser.parse(json)["experiment"]) == "small\x1b[2J");

  const std::string pair = report::compare_document(judged, true, report::Format::kJson);
  CHECK(pair == report::compare_pair_json(judged.comparisons.experiment,
                                          judged.comparisons.comparisons.front()) +
                    "\n");

  const std::string text = report::compare_document(judged, false, report::Format::kText);
  CHECK(text == report::printable_lines(report::compare_text(judged.comparisons, judged.settings)));
  CHECK(text.find("experiment 'small\\x1b[2J'") == 0);  // shown escaped, never raw
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.back() == '\n');
  CHECK(text.find("{\"experiment\"") == std::string::npos);  // no JSON in the text document

  // Renderers that used to end their JSON themselves: one newline, from the document.
  CHECK(report::runs_document({}, report::Format::kJson) == "[]\n");
  const std::string runs =
      report::runs_document({ok_run(7, "e", "baseline", 12.5)}, report::Format::kJson);
  CHECK(runs.back() == '\n');
  CHECK(runs.find("\n") == runs.size() - 1);
  CHECK(std::int64_t(parser.parse(runs).at(0)["id"]) == 7);
  const std::string merged =
      report::merge_document("out.db", {{"a.db", {}}}, 3, report::Format::kJson);
  CHECK(merged.find("\n") == merged.size() - 1);
  CHECK(report::merge_document("out.db", {{"a.db", {}}}, 3, report::Format::kText) ==
        "merged 1 database(s) into out.db: 3 run(s) stored\n");
}

TEST_CASE("runs listing: a long configuration label widens its column; no trailing blanks") {
  storage::RunSummary plain = ok_run(3, "lammps-melt", "baseline", 0.692);
  plain.started_at = "2026-12-06T05:15:57.151Z";
  storage::RunSummary delayed = plain;
  delayed.id = 2;
  delayed.config = "delay=rank1:compute>MPI_Allreduce:10ms";  // 38 characters, past 28
  delayed.median_ms = 10.912;
  storage::RunSummary failed = plain;
  failed.id = 4;
  failed.status = "failed";
  failed.median_ms.reset();
  failed.error = "exit 1";
  const std::string text = report::runs_document({plain, delayed, failed}, report::Format::kText);
  CHECK(text ==
        "    id  experiment           config                                  rep  status      "
        "   median_ms  started_at               error\n"
        "     3  lammps-melt          baseline                                  0  ok          "
        "       0.692  2026-12-06T05:15:57.151Z\n"
        "     2  lammps-melt          delay=rank1:compute>MPI_Allreduce:10ms    0  ok          "
        "      10.912  2026-12-06T05:15:57.151Z\n"
        "     4  lammps-melt          baseline                                  0  failed      "
        "           -  2026-12-06T05:15:57.151Z exit 1\n");
}

TEST_CASE("terminal text: control characters escaped, line breaks kept by printable_lines") {
  using culprit::report::printable;
  using culprit::report::printable_lines;
  CHECK(printable("layer2\x1b[2J\r") == "layer2\\x1b[2J\\x0d");
  CHECK(printable("a\nb\tc\x7f") == "a\\nb\\tc\\x7f");
  CHECK(printable_lines("one \x1b[31m\ntwo\r\n") == "one \\x1b[31m\ntwo\\x0d\n");
  CHECK(printable_lines("") == "");
  CHECK(printable_lines("\n\n") == "\n\n");
  CHECK(printable_lines("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 passes through
}

TEST_CASE("item 8 (#38): names holding <!--<script> cannot break the report's data block") {
  // Hand-written: an experiment name and a note that would open a comment or close the element.
  culprit::findings::ReportData data;
  data.experiment = "x<!--<script>";
  data.notes = {"a note </script><!-- y"};
  const std::string html = report::report_html(data);
  const std::string open = R"(<script type="application/json" id="culprit-data">)";
  const auto begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</script>", begin + open.size());
  REQUIRE(end != std::string::npos);
  const std::string block = html.substr(begin + open.size(), end - begin - open.size());
  CHECK(block.find('<') == std::string::npos);
  CHECK(block.find(R"(\u003c!--\u003cscript>)") != std::string::npos);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(block).get(doc) == simdjson::SUCCESS);
  CHECK(html.find("<title>culprit report: x&lt;!--&lt;script&gt;</title>") != std::string::npos);
}

// Hand-written inputs (issue 37's messages): a custom program's culprit has no microbatch and no
// collective number; one rank waited; runs shorter than the 1 s sampling period have no sample.
TEST_CASE("explain text: no -1 identifiers, one rank waited, no empty dashboard line") {
  analysis::Explanation e;
  e.baseline_label = "baseline";
  e.candidate_label = "delay=rank1:layer2:30ms";
  e.culprit.found = true;
  e.culprit.rank = 1;
  e.culprit.phase = "layer2";
  e.culprit.excess_ms = 30.2;
  e.culprit.steps_blamed = 12;
  e.culprit.steady_steps = 12;
  e.symptom.waiting_ranks = 1;
  e.symptom.median_wait_ms = 29.5;
  analysis::StoredExplanations stored;
  stored.experiment = "torch-ddp";
  stored.explanations.push_back(e);
  const std::string text = report::explain_text(stored);
  CHECK(text.find("cause: rank 1 layer2, +30.20 ms over the peer median (first unexplained "
                  "divergence in 12/12 steps)\n") != std::string::npos);
  CHECK(text.find("symptom: 1 rank waited a median 29.50 ms at the collective - it is not the "
                  "cause\n") != std::string::npos);
  CHECK(text.find("-1") == std::string::npos);
  CHECK(text.find("sampled activity") == std::string::npos);
  e.culprit.microbatch = 3;
  e.culprit.collective = 0;
  e.symptom.waiting_ranks = 63;
  e.candidate_activity.samples = 2;
  stored.explanations = {e};
  const std::string long_run = report::explain_text(stored);
  CHECK(long_run.find("cause: rank 1 layer2 microbatch 3, +30.20 ms") != std::string::npos);
  CHECK(long_run.find("symptom: 63 ranks waited a median 29.50 ms at allreduce #0 - they are "
                      "not the cause\n") != std::string::npos);
  CHECK(long_run.find("sampled activity (a ") != std::string::npos);
  e.symptom.waiting_ranks = 0;  // the culprit held nobody back beyond noise
  stored.explanations = {e};
  CHECK(report::explain_text(stored).find("symptom: no rank waited beyond noise\n") !=
        std::string::npos);
}

TEST_CASE("phase, place and waiter descriptions") {
  CHECK(report::describe_phase("allreduce", -1) == "allreduce (late call)");
  CHECK(report::describe_phase("allreduce", 2) == "allreduce bucket 2 (late call)");
  CHECK(report::describe_place("gemm.fwd", 1, 0) == "gemm.fwd layer 1 microbatch 0");
  CHECK(report::describe_place("optimizer", -1, -1) == "optimizer");
  CHECK(report::describe_waiters(1, 2.5, 4) == "1 rank waited a median 2.50 ms at allreduce #4");
  CHECK(report::describe_waiters(3, 2.5, -1) ==
        "3 ranks waited a median 2.50 ms at the collective");
}

TEST_CASE("validate text: an uninjected version that regressed is reported, not scored") {
  analysis::Scorecard card;
  card.experiment = "torch-ddp";
  const analysis::RunCulprit blamed = blamed_on(1, "fc2", -1, 30);
  card.controls.push_back({1, "baseline", analysis::RunCulprit{}, 10});
  card.uninjected.push_back({2, "version=v2", blamed, 40});
  card.uninjected.push_back({3, "ranks=4", analysis::RunCulprit{}, 11});
  const std::string text = report::validate_text(card);
  CHECK(text.find("    2  version=v2                         regressed without injection: rank 1 "
                  "fc2 +30.00 ms\n") != std::string::npos);
  CHECK(text.find("    3  ranks=4                            no injection: no rank diverges\n") !=
        std::string::npos);
  CHECK(text.find("false positives on controls: 0/1 = 0.0 %") != std::string::npos);
  CHECK(text.find("FALSE POSITIVE") == std::string::npos);
  const std::string json = report::validate_json(card);
  CHECK(json.find("\"uninjected_runs\":[{\"run\":2,\"config\":\"version=v2\",\"blamed\":{") !=
        std::string::npos);
  CHECK(json.find("\"regressed\":true") != std::string::npos);
  CHECK(json.find("\"false_positives\":0") != std::string::npos);
}

TEST_CASE("validate text: columns as wide as their longest cell (an MPI phase, LAMMPS)") {
  analysis::Scorecard card;
  card.experiment = "lammps-melt";
  const analysis::RunCulprit blamed = blamed_on(1, "compute>MPI_Allreduce", 0, 10.11);
  analysis::ValidationCase hit;
  hit.run_id = 5;
  hit.injected = {1, "compute>MPI_Allreduce", -1, -1, 10.0};
  hit.blamed = blamed;
  hit.hit = true;
  card.cases.push_back(hit);
  card.controls.push_back({7, "baseline", analysis::RunCulprit{}, 0.5});
  const std::string text = report::validate_text(card);
  // "rank 1 compute>MPI_Allreduce 10.00 ms" is 37 characters, past the 34 of a layer's column;
  // the blame, 45, past 40: the outcomes stand in one column.
  CHECK(text.find("\n  run  injected                              blamed\n") != std::string::npos);
  CHECK(text.find("\n    5  rank 1 compute>MPI_Allreduce 10.00 ms rank 1 compute>MPI_Allreduce "
                  "layer 0 10.11 ms hit\n") != std::string::npos);
  CHECK(text.find("\n    7  control (no injection)                nobody" + std::string(40, ' ') +
                  "ok\n") != std::string::npos);
}

TEST_CASE("validate judged: the uninjected runs' verdicts come from the one judgement") {
  analysis::Scorecard card;
  card.experiment = "torch-ddp";
  const analysis::RunCulprit blamed = blamed_on(1, "fc2", -1, 30);  // the code regressed...
  card.uninjected.push_back({2, "version=v2", blamed, 40});
  card.uninjected.push_back({3, "ranks=4", analysis::RunCulprit{}, 11});
  // ...a hand-made judgement (as stats::judge_experiment returns it) says v2 is equivalent.
  stats::Judgement judged;
  judged.settings = {0.05, 2, 0.025, 0.02, "as the experiment ran"};
  for (const auto& [label, verdict] : {std::pair{"version=v2", stats::Verdict::kEquivalent},
                                       std::pair{"ranks=4", stats::Verdict::kRegressed}}) {
    stats::StoredComparison c;
    c.baseline_label = "baseline";
    c.candidate_label = label;
    c.comparison.verdict = verdict;
    c.comparison.alpha = 0.025;
    c.comparison.margin = 0.02;
    judged.comparisons.comparisons.push_back(c);
  }
  const std::string text = report::validate_text(card, &judged);
  CHECK(text.find("    2  version=v2                         equivalent without injection: rank 1 "
                  "fc2 +30.00 ms\n") != std::string::npos);
  CHECK(text.find("    3  ranks=4                            regressed without injection: no rank "
                  "diverges\n") != std::string::npos);
  CHECK(text.find("(verdicts at alpha 0.025 per comparison over 2 look(s), margin 2 %: as the "
                  "experiment ran)\n") != std::string::npos);
  const std::string json = report::validate_json(card, &judged);
  CHECK(json.find("\"regressed\":false,\"verdict\":\"equivalent\"") != std::string::npos);
  CHECK(json.find("\"regressed\":true,\"verdict\":\"regressed\"") != std::string::npos);
  CHECK(json.find("\"judgement\":{\"alpha\":0.05,\"looks\":2,\"alpha_per_comparison\":0.025,"
                  "\"margin\":0.02,\"source\":\"as the experiment ran\",\"comparisons\":[{"
                  "\"baseline\":\"baseline\",\"candidate\":\"version=v2\",\"verdict\":"
                  "\"equivalent\"") != std::string::npos);
  // Not judged: the blame alone, as before, and no judgement key.
  CHECK(report::validate_json(card).find("\"judgement\"") == std::string::npos);
}

TEST_CASE("validate roles: only injections are cases; only baseline-like runs are controls") {
  using analysis::RunRole;
  analysis::InjectionTruth none, delay, slowdown;
  delay.delay = analysis::InjectedDelay{1, "layer2", -1, -1, 30};
  slowdown.other_injection = true;
  CHECK(analysis::run_role(true, "", none) == RunRole::kControl);
  CHECK(analysis::run_role(false, "delay", none) == RunRole::kControl);  // a level without delay
  CHECK(analysis::run_role(false, "version", none) == RunRole::kUninjected);
  CHECK(analysis::run_role(false, "ranks", none) == RunRole::kUninjected);
  CHECK(analysis::run_role(false, "delay", delay) == RunRole::kCase);
  CHECK(analysis::run_role(false, "version", delay) == RunRole::kCase);
  CHECK(analysis::run_role(false, "model.slowdown", slowdown) == RunRole::kUnscored);
}
