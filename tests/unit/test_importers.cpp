// Mapping rules of culprit import (docs/importers.md): steps, innermost labels, the waiting
// rule, collective matching by identifiers, clock models, exact timestamps.
#include <doctest/doctest.h>

#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"
#include "culprit/importers/input.hpp"
#include "culprit/importers/kineto.hpp"
#include "culprit/importers/mapping.hpp"
#include "culprit/importers/nsys.hpp"
#include "culprit/importers/ranks.hpp"

using namespace culprit::importers;

namespace {

constexpr std::int64_t us = 1000;

TraceRecord rec(RankTrace& t, const std::string& name, RecordKind kind, std::int64_t b,
                std::int64_t e, std::int64_t thread = 1) {
  TraceRecord r;
  r.name = t.names.intern(name);
  r.kind = kind;
  r.begin_ns = b * us;
  r.end_ns = e * us;
  r.thread = thread;
  t.records.push_back(r);
  return r;
}

std::string phase_list(const RankTrace& t, const std::vector<Phase>& phases) {
  std::string out;
  for (const Phase& p : phases) {
    out += t.names[p.name] + "@" + std::to_string(p.begin_ns / us) + "-" +
           std::to_string(p.end_ns / us) + "#" + std::to_string(p.occurrence) + " ";
  }
  return out;
}

// The steps `pattern` finds in an nsys rank whose labels follow each other, 100 us each.
RankSteps labelled_steps(const std::vector<std::string>& labels, const std::string& pattern) {
  RankTrace t;
  t.file = "rank0.sqlite";
  std::int64_t at = 0;
  for (const std::string& label : labels) {
    rec(t, label, RecordKind::kLabel, at, at + 100);
    at += 100;
  }
  StepRule rule;
  rule.pattern = pattern;
  return find_steps(t, rule);
}

// Rank r's trace with one step (ProfilerStep#1, 0 to 1000 us) and two all-reduces in it, at
// 100 and 200 us: the test sets their identifiers.
// A trace of `file` whose one step label, ProfilerStep#step, spans [0, end_us].
RankTrace one_step_trace(const std::string& file, int step, std::int64_t end_us) {
  RankTrace t;
  t.file = file;
  rec(t, "ProfilerStep#" + std::to_string(step), RecordKind::kLabel, 0, end_us);
  return t;
}

RankTrace two_allreduces(int r) {
  RankTrace t;
  t.file = "rank" + std::to_string(r) + ".json";
  t.rank = r;
  rec(t, "ProfilerStep#1", RecordKind::kLabel, 0, 1000);
  for (int k = 0; k < 2; ++k)
    rec(t, "c10d::allreduce_", RecordKind::kOp, 100 + 100 * k, 110 + 100 * k);
  return t;
}

// The collectives of every rank, matched across ranks (identities assigned).
std::vector<std::vector<RankCollective>> matched_collectives(std::vector<RankTrace>& traces) {
  std::vector<std::vector<RankCollective>> colls;
  for (auto& t : traces) colls.push_back(rank_collectives(t, find_steps(t, StepRule{})));
  assign_identities(traces, colls);
  return colls;
}

// Rank r of a 4-rank Kineto job, with one recorded step.
RankTrace kineto_rank(int r) {
  RankTrace t;
  t.file = "rank" + std::to_string(r) + ".json";
  t.format = "kineto";
  t.rank = r;
  t.world_size = 4;
  return t;
}

}  // namespace

TEST_CASE("ProfilerStep#N keeps N as the step number") {
  CHECK(profiler_step_number("ProfilerStep#2") == 2);
  CHECK(profiler_step_number("ProfilerStep#551") == 551);
  CHECK_FALSE(profiler_step_number("ProfilerStep#").has_value());
  CHECK_FALSE(profiler_step_number("ProfilerStep#2x").has_value());
  CHECK_FALSE(profiler_step_number("layer2").has_value());
  // A number past int is no step number; find_steps refuses such a label (below).
  CHECK_FALSE(profiler_step_number("ProfilerStep#1099511627776").has_value());

  // PyTorch 1.13 labels loop iteration 3 as #2: the label's number is kept.
  RankTrace t = one_step_trace("rank0.json", 2, 100);
  rec(t, "ProfilerStep#3", RecordKind::kLabel, 110, 200);
  rec(t, "aten::mm", RecordKind::kOp, 10, 20);
  const RankSteps steps = find_steps(t, StepRule{});
  REQUIRE(steps.steps.size() == 2);
  CHECK(steps.steps[0].step == 2);
  CHECK(steps.steps[1].step == 3);
  CHECK(step_at(steps, 150 * us) == 3);
  CHECK(step_at(steps, 105 * us) == -1);

  // Before, that step was read as no step and left out of the run without a word.
  rec(t, "ProfilerStep#1099511627776", RecordKind::kLabel, 210, 300);
  CHECK_THROWS_WITH_AS(find_steps(t, StepRule{}),
                       doctest::Contains("rank0.json: step label 'ProfilerStep#1099511627776': "
                                         "the step number is beyond 2147483647"),
                       culprit::UsageError);
  CHECK_THROWS_WITH_AS(
      labelled_steps({"iteration 7", "iteration 99999999999"}, R"(^iteration (\d+)$)"),
      doctest::Contains("the step number is beyond"), culprit::UsageError);
}

TEST_CASE("a pattern names nsys steps; without a marker the capture is one step") {
  const RankSteps steps = labelled_steps({"iteration 7", "iteration 8"}, R"(^iteration (\d+)$)");
  REQUIRE(steps.steps.size() == 2);
  CHECK(steps.steps[1].step == 8);

  // A label far longer than any step marker is not matched at all: the regex would recurse
  // per character and overflow the stack (a crash fuzz_import_kineto found).
  const RankSteps one = labelled_steps({"iteration 1" + std::string(200'000, 'x'), "iteration 2"},
                                       R"(^iteration (\d+).*$)");
  REQUIRE(one.steps.size() == 1);
  CHECK(one.steps[0].step == 2);

  RankTrace none;
  none.file = "x.sqlite";
  rec(none, "kernel", RecordKind::kOp, 5, 50);
  const RankSteps whole = find_steps(none, StepRule{});
  CHECK(whole.whole_capture);
  REQUIRE(whole.steps.size() == 1);
  CHECK(whole.steps[0].begin_ns == 5 * us);
  CHECK(none.warnings.size() == 1);
}

TEST_CASE("nested regions flatten to the innermost label holding the time") {
  RankTrace t = one_step_trace("rank0.json", 0, 100);
  rec(t, "forward", RecordKind::kLabel, 10, 60);
  rec(t, "aten::linear", RecordKind::kOp, 12, 30);  // an op holds no label: forward's time
  rec(t, "layer2", RecordKind::kLabel, 30, 50);
  rec(t, "aten::mm", RecordKind::kOp, 35, 51);     // ends 1 µs after its parent: clamped
  rec(t, "aten::zeros", RecordKind::kOp, 70, 80);  // outside every label: the op's own name
  const RankSteps steps = find_steps(t, StepRule{});
  const auto phases = flatten_phases(t, steps, {});
  CHECK(phase_list(t, phases) ==
        "forward@10-30#0 layer2@30-50#0 forward@50-60#1 aten::zeros@70-80#0 ");
}

TEST_CASE("bare time while a collective completes is waiting, not the label's work") {
  RankTrace t = one_step_trace("rank0.json", 0, 200);
  rec(t, "backward", RecordKind::kLabel, 0, 150);
  rec(t, "AddmmBackward0", RecordKind::kOp, 0, 40);
  rec(t, "c10d::allreduce_", RecordKind::kOp, 40, 42);
  rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, 45, 145, 2);  // on a worker thread
  rec(t, "optimizer", RecordKind::kLabel, 150, 190);
  const RankSteps steps = find_steps(t, StepRule{});
  const auto colls = rank_collectives(t, steps);
  REQUIRE(colls.size() == 1);
  CHECK(colls[0].arrival_ns == 40 * us);      // arrival: the enqueue on the calling thread
  CHECK(colls[0].completion_ns == 145 * us);  // completion: the end of the work
  const auto phases = flatten_phases(t, steps, colls);
  // backward's bare stretch 42-150 begins with the collective in flight: waiting up to its
  // completion at 145, left to the collective; 145-150, after it, is backward's own again.
  CHECK(phase_list(t, phases) == "backward@0-42#0 backward@145-150#1 optimizer@150-190#0 ");
}

TEST_CASE("an operator's children of any name stay the operator's where the trace has no kinds") {
  // Issue 34: torch records `aten::detach` with a child named `detach`; read from a legacy
  // trace (no categories) the child was a label and split fc2 into pieces that no longer
  // matched across ranks.
  auto trace = [](const std::string& format) {
    RankTrace t;
    t.file = "rank1.json";
    t.format = format;
    rec(t, "ProfilerStep#0", RecordKind::kLabel, 0, 100);
    rec(t, "fc2", RecordKind::kLabel, 10, 90);
    rec(t, "aten::detach", RecordKind::kOp, 20, 30);
    rec(t, "detach", RecordKind::kLabel, 21, 29);  // the name says nothing: the nesting does
    rec(t, "aten::mm", RecordKind::kOp, 40, 80);
    rec(t, "aten::detach", RecordKind::kOp, 81, 82);
    rec(t, "detach", RecordKind::kLabel, 82, 83);  // integer µs: starts as its parent ends
    rec(t, "aten::detach", RecordKind::kOp, 84, 85);
    rec(t, "detach", RecordKind::kLabel, 84, 85);  // or spans what its parent spans
    return t;
  };
  RankTrace legacy = trace("legacy");
  CHECK(phase_list(legacy, flatten_phases(legacy, find_steps(legacy, StepRule{}), {})) ==
        "fc2@10-90#0 ");
  // Kineto says each record's kind (cat): a user_annotation inside an operator is a label.
  RankTrace kineto = trace("kineto");
  CHECK(phase_list(kineto, flatten_phases(kineto, find_steps(kineto, StepRule{}), {})) ==
        "fc2@10-21#0 detach@21-29#0 fc2@29-82#1 detach@82-83#1 fc2@83-84#2 detach@84-85#2 "
        "fc2@85-90#3 ");
}

TEST_CASE("a gloo tail overlapping later compute is not waiting") {
  // Issue 34: the previous step's gloo:all_reduce ends on its worker thread 0.2 ms into the
  // next step, inside the straggler's time.sleep in fc2; the sleep was taken for waiting and
  // removed from fc2. A collective's tail past the stretch it was waited for in (backward) is
  // not waiting in the next label (optimizer) either.
  RankTrace t = one_step_trace("rank1.json", 0, 1000);
  rec(t, "backward", RecordKind::kLabel, 100, 500);
  rec(t, "c10d::allreduce_", RecordKind::kOp, 150, 160);
  rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, 165, 520, 2);   // 20 µs past backward
  rec(t, "optimizer", RecordKind::kLabel, 500, 990);                     // a 350 µs sleep, then
  rec(t, "c10d::allreduce_", RecordKind::kOp, 850, 855);                 // a late bucket whose
  rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, 860, 1200, 2);  // tail ends in step 1
  rec(t, "ProfilerStep#1", RecordKind::kLabel, 1000, 2000);
  rec(t, "fc2", RecordKind::kLabel, 1050, 1400);  // a sleep, 150 µs of that tail inside
  const RankSteps steps = find_steps(t, StepRule{});
  const auto colls = rank_collectives(t, steps);
  REQUIRE(colls.size() == 2);
  CHECK(phase_list(t, flatten_phases(t, steps, colls)) ==
        "backward@100-160#0 optimizer@500-855#0 fc2@1050-1400#0 ");
}

TEST_CASE("collectives are matched by identifiers and a mismatch is reported") {
  auto rank = [](int r, std::int64_t numel, int calls) {
    RankTrace t;
    t.file = "rank" + std::to_string(r) + ".json";
    t.rank = r;
    rec(t, "ProfilerStep#1", RecordKind::kLabel, 0, 1000);
    for (int k = 0; k < calls; ++k) {
      rec(t, "c10d::allreduce_", RecordKind::kOp, 100 + 100 * k, 110 + 100 * k);
      TraceRecord w =
          rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, 120 + 100 * k, 150 + 100 * k, 2);
      t.records.back().numel = k == 0 ? numel : 10;
      (void)w;
    }
    return t;
  };
  std::vector<RankTrace> traces;
  traces.push_back(rank(0, 267786, 2));
  traces.push_back(rank(1, 267786, 2));
  std::vector<std::vector<RankCollective>> colls;
  for (auto& t : traces) colls.push_back(rank_collectives(t, find_steps(t, StepRule{})));
  CHECK(check_collectives(traces, colls, false).warnings.empty());

  traces[1] = rank(1, 524800, 2);
  colls[1] = rank_collectives(traces[1], find_steps(traces[1], StepRule{}));
  CHECK_THROWS_WITH_AS(check_collectives(traces, colls, false),
                       doctest::Contains("element count 267786 in rank0.json"),
                       culprit::UsageError);
  const CollectiveCheck partial = check_collectives(traces, colls, true);
  CHECK(partial.dropped.size() == 1);
  CHECK(partial.warnings.size() == 1);

  traces[1] = rank(1, 267786, 1);  // one collective fewer: reported, not silently dropped
  colls[1] = rank_collectives(traces[1], find_steps(traces[1], StepRule{}));
  const CollectiveCheck missing = check_collectives(traces, colls, false);
  REQUIRE(missing.warnings.size() == 1);
  CHECK(missing.warnings[0].find("missing in rank1.json") != std::string::npos);
}

TEST_CASE("clock models come from the collectives, with an uncertainty") {
  std::vector<std::vector<RankCollective>> colls(2);
  std::vector<RankSteps> steps(2);
  for (int k = 0; k < 5; ++k) {
    RankCollective a;
    a.step = k;
    a.arrival_ns = k * 1'000'000 + 100'000;
    a.completion_ns = k * 1'000'000 + 300'000;
    RankCollective b = a;
    b.arrival_ns = a.arrival_ns - 5'000'000 + 50'000;  // rank 1's clock is 5 ms behind
    b.completion_ns = a.completion_ns - 5'000'000;
    colls[0].push_back(a);
    colls[1].push_back(b);
  }
  const auto clocks = clock_models(colls, steps);
  CHECK(clocks[0].offset_ns == 0);
  CHECK(clocks[1].offset_ns == doctest::Approx(5'000'000));
  CHECK(clocks[1].uncertainty_ns > 0);
  CHECK(clocks[1].uncertainty_ns <= 300'000);
  CHECK(clocks[1].constraints == 5);
}

TEST_CASE("a straggler's delay is not absorbed into its clock offset") {
  // Issue 34: rank 1 arrives 30 ms after rank 0 at every collective (a straggler); the
  // completions coincide within 50 µs. The causal interval alone is 30 ms wide on rank 0's side,
  // and that width was the uncertainty (30-32 ms, the injection itself), within which the
  // analysis moved rank 1 by the delay. A call without its execution (the profiler cut it) ends
  // at its enqueue: no tie, or it bounds the offset by the delay.
  std::vector<std::vector<RankCollective>> colls(2);
  std::vector<RankSteps> steps(2);
  constexpr std::int64_t ms = 1'000'000;
  for (int k = 0; k < 6; ++k) {
    RankCollective a;
    a.step = k;
    a.arrival_ns = k * 100 * ms;
    a.completion_ns = a.arrival_ns + 31 * ms + (k % 2 ? 50'000 : -50'000);
    RankCollective b = a;  // rank 1's clock is 5 ms behind rank 0's
    b.arrival_ns = a.arrival_ns + 30 * ms - 5 * ms;
    b.completion_ns = a.arrival_ns + 31 * ms - 5 * ms;
    if (k == 5) {  // rank 0's execution was cut: only the enqueue
      a.completion_ns = a.arrival_ns + 10'000;
      a.completion_known = false;
    }
    colls[0].push_back(a);
    colls[1].push_back(b);
  }
  const auto clocks = clock_models(colls, steps);
  CHECK(clocks[1].offset_ns == doctest::Approx(5 * ms).epsilon(0.01));
  CHECK(clocks[1].constraints == 5);
  CHECK(clocks[1].uncertainty_ns >= 50'000);  // the ties disagree by 50 µs
  CHECK(clocks[1].uncertainty_ns <= 100'000);
  CHECK_FALSE(clocks[1].contradicted);
  // Fewer than 3 ties say nothing of their own spread: the causal interval bounds it.
  colls[0].resize(2);
  colls[1].resize(2);
  CHECK(clock_models(colls, steps)[1].uncertainty_ns > 29 * ms);
}

TEST_CASE("timestamps are exact: fractional µs relative to baseTimeNanoseconds") {
  const std::string json =
      R"({"schemaVersion": 1, "traceEvents": [)"
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1,)"
      R"( "ts": 299498.123, "dur": 73147.5, "args": {}},)"
      R"({"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "pid": 1, "tid": 3,)"
      R"( "ts": 1.0005, "dur": 2, "args": {"Input Dims": [[267786]], "Input type": ["float"]}}],)"
      R"( "distributedInfo": {"rank": 3, "world_size": 4}, "baseTimeNanoseconds": 1796112608000000001})";
  const RankTrace t = parse_kineto(json, "k.json");
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0].begin_ns == 1796112608000000001 + 299498123);
  CHECK(t.records[0].end_ns == 1796112608000000001 + 299498123 + 73147500);
  CHECK(t.records[1].begin_ns == 1796112608000000001 + 1001);
  CHECK(t.records[1].numel == 267786);
  CHECK(t.records[1].elem_bytes == 4);
  CHECK(t.rank == 3);
  CHECK(t.world_size == 4);
}

TEST_CASE("an id far beyond int64 reads as 0 (fuzz_import_kineto's find)") {
  const std::string json =
      R"({"schemaVersion": 1, "traceEvents": [)"
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1,)"
      R"( "ts": 10.5, "dur": 900.25, "args": {}},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5.55556e+90, "tid": 1e400,)"
      R"( "ts": 20, "dur": 100, "args": {}}], "distributedInfo": {"rank": 0, "world_size": 1}})";
  const RankTrace t = parse_kineto(json, "k.json");
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[1].begin_ns == 20000);
}

TEST_CASE("keys and strings read as written are unescaped where they hold an escape") {
  // Hand-written: escaped keys ("n\u0061me" is "name"), an escaped name, "ph" after the fields
  // it governs, and a flow whose fields after "ph" are not read (a bad ts there is no error).
  const std::string json =
      R"({"traceEvents": [)"
      R"({"cat": "cpu_op", "n\u0061me": "aten::\"mm\"", "pid": 1, "tid": 1,)"
      R"( "\u0074s": 20, "dur": 100, "ph": "X", "args": {"Se\u0071": 7}},)"
      R"({"ph": "f", "id": 5, "ts": "not a time", "cat": "fwdbwd", "name": "fwdbwd"},)"
      R"({"ph": "X", "cat": "user_annotation", "name": "fc2\u00e9", "pid": 1, "tid": 1,)"
      R"( "ts": 10, "dur": 200, "args": {}}], "distributedInfo": {"rank": 0, "world_size": 1}})";
  const RankTrace t = parse_kineto(json, "k.json");
  CHECK(t.events_read == 3);
  REQUIRE(t.records.size() == 2);
  CHECK(t.names[t.records[0].name] == "aten::\"mm\"");
  CHECK(t.records[0].begin_ns == 20000);
  CHECK(t.records[0].seq == 7);
  CHECK(t.records[0].kind == RecordKind::kOp);
  CHECK(t.names[t.records[1].name] == "fc2\xc3\xa9");
  CHECK(t.records[1].kind == RecordKind::kLabel);
}
TEST_CASE("legacy names are not JSON-escaped; the rank comes from the file name") {
  const std::string legacy =
      "[{\"name\": \"my \"odd\" \\label\", \"ph\": \"X\", \"ts\": 118, \"dur\": 28, \"tid\": 1, "
      "\"pid\": \"CPU functions\", \"args\": {}}, {\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": "
      "120, \"dur\": 2, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}]";
  const RankTrace t = parse_legacy(legacy, "/x/rank5.json");
  REQUIRE(t.records.size() == 2);
  CHECK(t.names[t.records[0].name] == "my \"odd\" \\label");
  CHECK(t.records[0].kind == RecordKind::kLabel);
  CHECK(t.records[1].kind == RecordKind::kOp);
  CHECK(t.records[0].begin_ns == 118 * us);
  CHECK(t.rank == 5);
  CHECK(rank_from_file_name("a/sampled_rank-1.json.gz") == 1);
  CHECK(rank_from_file_name("a/trace.json") == -1);
  CHECK_THROWS_WITH_AS(parse_legacy(legacy.substr(0, 60), "/x/rank5.json"),
                       doctest::Contains("byte offset"), culprit::UsageError);
}

TEST_CASE("a value nested a million levels deep: legacy refuses it, Kineto skips it, no crash") {
  // A damaged legacy file of 30,000 '[' overflowed the stack (fuzz_import_legacy); a million
  // overflows any thread's stack without the bound.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const std::string legacy =
      "[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2, "
      "\"tid\": 1, \"pid\": \"CPU functions\", \"args\": " +
      deep + "}]";
  CHECK_THROWS_WITH_AS(parse_legacy(legacy, "/x/rank0.json"),
                       doctest::Contains("nested deeper than 1024 levels"), culprit::UsageError);
  const std::string where =  // at the 1,025th '[' of args
      "/x/rank0.json: byte offset " + std::to_string(legacy.find('[', 1) + 1024) + ":";
  CHECK_THROWS_WITH_AS(parse_legacy(legacy, "/x/rank0.json"), doctest::Contains(where.c_str()),
                       culprit::UsageError);
  // 1,000 levels are JSON like any other: skipped.
  const std::string fine =
      "[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2, "
      "\"tid\": 1, \"pid\": \"CPU functions\", \"args\": " +
      std::string(1000, '[') + std::string(1000, ']') + "}]";
  CHECK(parse_legacy(fine, "/x/rank0.json").records.size() == 1);
  const std::string kineto =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", "
      "\"name\": \"aten::mm\", \"ts\": 1, \"dur\": 2, \"args\": " +
      deep + "}]}";
  // simdjson's on-demand reader skips args without recursion: the event is read.
  CHECK(parse_kineto(kineto, "k.json").records.size() == 1);
}

namespace {

// `text` as one gzip member (zlib's deflate with the gzip wrapper).
std::string gzip(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

TEST_CASE("a damaged gzip trailer is not trusted for the size: no gigabyte buffer, a clear error") {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "{\"ph\": \"X\", \"name\": \"aten::mm\", \"ts\": 1},\n";
  const std::string whole = gzip(text);
  CHECK(gunzip(whole, "t.json.gz") == text);
  // The trailer's ISIZE says 1 GiB: deflate cannot reach it from these few KB, so it is ignored
  // (trusting it allocated and zeroed 1 GiB before the error; 4 GiB took 50 s).
  std::string lying = whole;
  lying.replace(lying.size() - 4, 4, std::string("\0\0\0\x40", 4));
  const long before = peak_rss_kib();
  CHECK_THROWS_WITH_AS(gunzip(lying, "t.json.gz"),
                       doctest::Contains("t.json.gz: corrupt gzip stream (zlib: incorrect length "
                                         "check) at compressed byte offset"),
                       culprit::UsageError);
  // A truncated file ends in 4 arbitrary bytes: here they say about 850 MB.
  std::string truncated = whole.substr(0, whole.size() / 2);
  truncated.replace(truncated.size() - 4, 4, std::string("\x9b\x2b\x85\x32", 4));
  CHECK_THROWS_WITH_AS(
      gunzip(truncated, "t.json.gz"),
      doctest::Contains("t.json.gz: truncated gzip stream at compressed byte offset"),
      culprit::UsageError);
  CHECK(peak_rss_kib() - before < 64 * 1024);  // KiB: far below the 1 GiB the trailer claimed
}

TEST_CASE("a rank or world size no job can have is refused, naming the file and the field") {
  auto trace = [](const std::string& info) {
    return "{\"distributedInfo\": {" + info +
           "}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
           "\"aten::mm\", \"ts\": 1, \"dur\": 2}]}";
  };
  CHECK(parse_kineto(trace("\"rank\": 3, \"world_size\": 4"), "k.json").rank == 3);
  // -5 used to read as "no rank" (then the file name's); 2^32 + 1 wrapped to rank 1.
  CHECK_THROWS_WITH_AS(parse_kineto(trace("\"rank\": -5, \"world_size\": 4"), "k.json"),
                       doctest::Contains("k.json: distributedInfo.rank is -5: a rank is 0 or more"),
                       culprit::UsageError);
  CHECK_THROWS_WITH_AS(parse_kineto(trace("\"rank\": 4294967297"), "k.json"),
                       doctest::Contains("distributedInfo.rank is 4294967297"),
                       culprit::UsageError);
  // A rank past its world size made the job 2 billion ranks wide.
  CHECK_THROWS_WITH_AS(parse_kineto(trace("\"rank\": 1999999999, \"world_size\": 2"), "k.json"),
                       doctest::Contains("distributedInfo.rank 1999999999 is not below its "
                                         "world_size 2"),
                       culprit::UsageError);
  CHECK_THROWS_WITH_AS(parse_kineto(trace("\"rank\": 0, \"world_size\": 0"), "k.json"),
                       doctest::Contains("distributedInfo.world_size is 0: a job has 1 to"),
                       culprit::UsageError);
  // The file name's rank: beyond int it was "internal error: stoi", exit 1.
  CHECK(rank_from_file_name("run/rank2147483646.json") == 2147483646);
  for (const char* name : {"run/rank2147483647.json", "run/rank99999999999.json"}) {
    CHECK_THROWS_WITH_AS(rank_from_file_name(name), doctest::Contains("is beyond the largest rank"),
                         culprit::UsageError);
  }
}

TEST_CASE("a subset of ranks needs --partial") {
  auto one = [](int r) {
    RankTrace t = kineto_rank(r);
    rec(t, "ProfilerStep#1", RecordKind::kLabel, 0, 100);
    rec(t, "layer0", RecordKind::kLabel, 10, 50);
    return t;
  };
  std::vector<RankTrace> traces = {one(0), one(2)};
  ImportOptions o;
  CHECK_THROWS_WITH_AS(build_run(traces, o), doctest::Contains("missing rank(s) 1, 3"),
                       culprit::UsageError);
  o.partial = true;
  const ImportedRun run = build_run(traces, o);
  CHECK(run.summary.partial);
  CHECK(run.summary.ranks == 2);
  CHECK(run.summary.world_size == 4);
}

TEST_CASE("collectives of two process groups match by (group, ordinal), not by order") {
  auto rank = [](int r, bool a_first) {
    RankTrace t = two_allreduces(r);
    const std::int32_t a = static_cast<std::int32_t>(t.names.intern("pg_a"));
    const std::int32_t b = static_cast<std::int32_t>(t.names.intern("pg_b"));
    for (int k = 0; k < 2; ++k) {
      TraceRecord& c = t.records[static_cast<std::size_t>(k) + 1];
      c.group = (k == 0) == a_first ? a : b;
      c.numel = (k == 0) == a_first ? 100 : 200;
    }
    return t;
  };
  std::vector<RankTrace> traces;
  traces.push_back(rank(0, true));
  traces.push_back(rank(1, false));  // issues pg_b's collective first
  const auto colls = matched_collectives(traces);
  CHECK(colls[0][0].ordinal == colls[1][1].ordinal);  // pg_a's on both ranks
  CHECK(colls[0][1].ordinal == colls[1][0].ordinal);  // pg_b's on both ranks
  CHECK(check_collectives(traces, colls, false).warnings.empty());
}

TEST_CASE("a trace's Seq is the collective's identity when every file has one") {
  auto rank = [](int r, int first_seq) {
    RankTrace t = two_allreduces(r);
    for (int k = 0; k < 2; ++k)
      t.records[static_cast<std::size_t>(k) + 1].seq = first_seq + (r == 0 ? k : 1 - k);
    return t;
  };
  std::vector<RankTrace> traces;
  traces.push_back(rank(0, 7));
  traces.push_back(rank(1, 7));
  const auto colls = matched_collectives(traces);
  CHECK(colls[0][0].seq == colls[1][1].seq);
  CHECK(colls[0][0].ordinal == colls[1][1].ordinal);
  CHECK(check_collectives(traces, colls, false).warnings.empty());
}

TEST_CASE("a partial import lists the collectives whose process group was not all imported") {
  // Ranks 0 and 2 of 4; group "dp" = {0, 2} (all imported), "0" = the world, "tp" = {2, 3}.
  auto one = [](int r) {
    RankTrace t = kineto_rank(r);
    t.group_ranks = {{"0", {0, 1, 2, 3}}, {"dp", {0, 2}}};
    rec(t, "ProfilerStep#1", RecordKind::kLabel, 0, 1000);
    const char* groups[] = {"dp", "0", "unlisted"};
    for (int k = 0; k < 3; ++k) {
      rec(t, "c10d::allreduce_", RecordKind::kOp, 100 + 100 * k, 110 + 100 * k);
      t.records.back().group = static_cast<std::int32_t>(t.names.intern(groups[k]));
    }
    return t;
  };
  std::vector<RankTrace> traces = {one(0), one(2)};
  ImportOptions o;
  o.partial = true;
  const ImportedRun run = build_run(traces, o);
  CHECK(run.summary.incomplete_collectives == 2);
  std::string incomplete = "?";
  for (const auto& [key, value] : run.contents.meta)
    if (key == "incomplete_collectives") incomplete = value;
  CHECK(incomplete == "1:1 1:2");  // step 1: #1 (the world) and #2 (a group not listed)

  const auto colls = matched_collectives(traces);
  CHECK(collectives_missing_members(traces, colls).size() == 2);
  traces[1].rank = 1;  // ranks 0 and 1: "dp" now misses rank 2 as well
  CHECK(collectives_missing_members(traces, colls).size() == 3);
}

TEST_CASE("Kineto distributedInfo.pg_config gives the process groups' ranks") {
  const std::string json =
      R"({"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 4, "pg_config": [)"
      R"({"pg_name": "0", "pg_desc": "default_pg", "ranks": [0, 1, 2, 3]},)"
      R"({"pg_name": "5", "ranks": [1, 3]}, {"pg_name": "bad", "ranks": ["x"]}]},)"
      R"("traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1",)"
      R"("pid": 1, "tid": 1, "ts": 10, "dur": 100}]})";
  const RankTrace t = parse_kineto(json, "rank1.json");
  REQUIRE(t.group_ranks.size() == 2);
  CHECK(t.group_ranks.at("0") == std::vector<int>{0, 1, 2, 3});
  CHECK(t.group_ranks.at("5") == std::vector<int>{1, 3});
}

TEST_CASE("an NCCL kernel is paired with its call by correlation id, not by order") {
  RankTrace t = one_step_trace("rank0.json", 1, 1000);
  // B on the autograd thread (7) is called first but its kernel runs last.
  rec(t, "c10d::allreduce_", RecordKind::kOp, 50, 60, 7);
  rec(t, "cudaLaunchKernel", RecordKind::kRuntime, 52, 55, 7);
  t.records.back().correlation = 12;
  rec(t, "c10d::broadcast_", RecordKind::kOp, 100, 110);
  rec(t, "cudaLaunchKernel", RecordKind::kRuntime, 102, 105);
  t.records.back().correlation = 11;
  for (auto [name, b, e, corr] : {std::tuple{"ncclKernel_Broadcast", 200, 300, 11},
                                  std::tuple{"ncclKernel_AllReduce", 400, 500, 12}}) {
    rec(t, name, RecordKind::kCollectiveWork, b, e, 40);
    t.records.back().on_device = true;
    t.records.back().correlation = corr;
  }
  const std::vector<RankCollective> c = rank_collectives(t, find_steps(t, StepRule{}));
  REQUIRE(c.size() == 2);
  CHECK(t.names[c[0].name] == "c10d::allreduce_");
  CHECK(c[0].arrival_ns == 50 * us);
  CHECK(c[0].device_begin_ns == 400 * us);  // both arrivals kept: host 50, device 400
  CHECK(c[0].completion_ns == 500 * us);
  CHECK(t.names[c[1].name] == "c10d::broadcast_");
  CHECK(c[1].device_begin_ns == 200 * us);
  CHECK(c[1].completion_ns == 300 * us);
  CHECK(t.warnings.empty());
}

TEST_CASE("gloo work paired in order is checked against the element count") {
  RankTrace t = one_step_trace("rank0.json", 1, 1000);
  rec(t, "c10d::allreduce_", RecordKind::kOp, 100, 110);
  t.records.back().numel = 10;
  rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, 120, 150, 2);
  t.records.back().numel = 99;
  const std::vector<RankCollective> c = rank_collectives(t, find_steps(t, StepRule{}));
  REQUIRE(c.size() == 1);
  CHECK(c[0].completion_ns == 110 * us);  // not paired: the call's own end
  REQUIRE(t.warnings.size() == 1);
  CHECK(t.warnings[0].find("different element counts") != std::string::npos);
}

TEST_CASE("gloo work is paired in order only in a step with as many calls as executions") {
  // Two steps of three DDP buckets (element counts 100, 200, 300; the calls carry none, as in
  // torch 1.13's traces). Rank 0's profiler stopped before step 2's second execution was
  // recorded; rank 1 has all of them.
  const auto rank = [](int r, bool cut) {
    RankTrace t;
    t.file = "rank" + std::to_string(r) + ".json";
    t.rank = r;
    for (int step = 0; step < 2; ++step) {
      const std::int64_t at = 1000 * step;
      rec(t, "ProfilerStep#" + std::to_string(step + 1), RecordKind::kLabel, at, at + 1000);
      for (int k = 0; k < 3; ++k) {
        rec(t, "c10d::allreduce_", RecordKind::kOp, at + 100 + 100 * k, at + 110 + 100 * k);
        if (cut && step == 1 && k == 1) continue;
        rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, at + 120 + 100 * k,
            at + 150 + 100 * k, 2 + k % 2);
        t.records.back().numel = 100 * (k + 1);
      }
    }
    return t;
  };
  std::vector<RankTrace> traces;
  traces.push_back(rank(0, true));
  traces.push_back(rank(1, false));
  std::vector<std::vector<RankCollective>> colls;
  for (auto& t : traces) colls.push_back(rank_collectives(t, find_steps(t, StepRule{})));
  REQUIRE(colls[0].size() == 6);
  for (int k = 0; k < 3; ++k) {  // step 1: every call has its own execution
    CHECK(colls[0][static_cast<std::size_t>(k)].numel == 100 * (k + 1));
    CHECK(colls[0][static_cast<std::size_t>(k)].completion_ns == (150 + 100 * k) * us);
  }
  for (int k = 3; k < 6; ++k) {  // step 2: none paired, completion unknown
    CHECK(colls[0][static_cast<std::size_t>(k)].numel == -1);
    CHECK_FALSE(colls[0][static_cast<std::size_t>(k)].completion_known);
  }
  CHECK(colls[1][4].completion_known);
  CHECK(traces[0].warnings.empty());
  // Across ranks the job matches: pairing in order over the whole file gave rank 0's second
  // call of step 2 the third bucket's execution (300 against rank 1's 200) and refused the job.
  assign_identities(traces, colls);
  CHECK(check_collectives(traces, colls, false).warnings.empty());
  // Step 2 is left out: rank 0's waiting and completions there are unknown.
  std::vector<std::string> warnings;
  CHECK(steps_cut_short(traces, colls, warnings) == std::set<int>{2});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "rank0.json: collective call(s) without their execution in step(s) 2 (3): the profiler "
        "stopped before the worker recorded the last execution (or the trace is sampled), so the "
        "rank's waiting and the completion there are unknown: those steps are left out");
}

TEST_CASE("a step whose only gloo execution the profiler cut is left out, and said") {
  // Issue 34: a 1-bucket job whose last step's execution on rank 0 was never recorded (the main
  // thread stopped the profiler before the worker closed its record). The call alone was taken
  // as the completion, nothing was warned, and the analysis' causality then moved rank 1's
  // clock by the straggler's 30 ms.
  RankTrace t = one_step_trace("rank0.json", 1, 1000);
  rec(t, "c10d::allreduce_", RecordKind::kOp, 100, 110);
  rec(t, "gloo:all_reduce", RecordKind::kCollectiveWork, 120, 900, 2);
  rec(t, "ProfilerStep#2", RecordKind::kLabel, 1000, 2000);
  rec(t, "c10d::allreduce_", RecordKind::kOp, 1100, 1110);
  std::vector<RankTrace> traces{t};
  std::vector<std::vector<RankCollective>> colls{
      rank_collectives(traces[0], find_steps(traces[0], StepRule{}))};
  REQUIRE(colls[0].size() == 2);
  CHECK(colls[0][0].completion_known);
  CHECK_FALSE(colls[0][1].completion_known);
  std::vector<std::string> warnings;
  CHECK(steps_cut_short(traces, colls, warnings) == std::set<int>{2});
  CHECK(warnings.size() == 1);
}

TEST_CASE("files read in parallel come back in order; the first bad file's error is thrown") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "culprit_unit_importers_parallel";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  std::vector<std::string> files;
  for (int r = 0; r < 5; ++r) {
    files.push_back(write(
        "rank" + std::to_string(r) + ".json",
        R"({"distributedInfo": {"rank": )" + std::to_string(r) +
            R"(, "world_size": 5}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "op)" +
            std::to_string(r) + R"(", "pid": 1, "tid": 1, "ts": 10, "dur": 5}]})"));
  }
  const std::vector<RankTrace> traces = read_traces(files, Format::kAuto);
  REQUIRE(traces.size() == files.size());
  for (int r = 0; r < 5; ++r) {
    CHECK(traces[static_cast<std::size_t>(r)].file == files[static_cast<std::size_t>(r)]);
    const RankTrace& t = traces[static_cast<std::size_t>(r)];
    CHECK(t.rank == r);
    REQUIRE(t.records.size() == 1);
    CHECK(t.names[t.records[0].name] == "op" + std::to_string(r));
  }
  std::vector<std::string> bad = files;
  bad[2] = write("rank2.json", R"({"traceEvents": [{"ph": "X", "ts": )");
  bad[4] = write("rank4.json", "");
  CHECK_THROWS_WITH_AS(read_traces(bad, Format::kAuto), doctest::Contains("rank2.json"),
                       culprit::UsageError);
  fs::remove_all(dir);
}

TEST_CASE(
    "timestamps of every digit count convert exactly (eight digits at a time and one by one)") {
  // ts = whole µs (1 to 19 digits) + 0 to 5 decimals; expected in ns, computed here digit by
  // digit (a fourth decimal rounds, further ones are ignored).
  std::string json = R"({"traceEvents": [)";
  std::vector<std::int64_t> expected;
  std::uint64_t seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (int n = 0; n < 400; ++n) {
    const int digits = 1 + n % 16;
    // 16 digits: below 9.2e15 µs, beyond which ns overflow int64 (refused, checked below)
    std::string whole = std::to_string(digits == 16 ? 1 : 1 + next() % 9);
    for (int d = 1; d < digits; ++d) whole += static_cast<char>('0' + (next() >> 33) % 10);
    if (n % 7 == 0 && digits < 16) whole = std::string(static_cast<std::size_t>(digits), '9');
    const int decimals = static_cast<int>((next() >> 20) % 6);
    std::string frac;
    for (int d = 0; d < decimals; ++d) frac += static_cast<char>('0' + (next() >> 35) % 10);
    std::int64_t ns = std::stoll(whole) * 1000;
    std::int64_t f = 0;
    for (int d = 0; d < 3; ++d)
      f = f * 10 + (d < decimals ? frac[static_cast<std::size_t>(d)] - '0' : 0);
    if (decimals > 3 && frac[3] >= '5') ++f;
    expected.push_back(ns + f);
    json += std::string(n ? "," : "") + R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1,)" +
            R"( "tid": 1, "ts": )" + whole + (decimals ? "." + frac : "") + R"(, "dur": 1})";
  }
  json += R"(], "distributedInfo": {"rank": 0, "world_size": 1}})";
  const RankTrace t = parse_kineto(json, "k.json");
  REQUIRE(t.records.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(t.records[i].begin_ns == expected[i]);
  for (const char* bad : {"12345678x9", "9999999999999999.5", "123456789012345678901"}) {
    const std::string trace =
        std::string(R"({"traceEvents": [{"ph": "X", "ts": )") + bad + R"(, "dur": 1}]})";
    CHECK_THROWS_WITH_AS(parse_kineto(trace, "k.json"), doctest::Contains("not a number"),
                         culprit::UsageError);
  }
}

TEST_CASE("inputs: a device or FIFO is refused by name; a folder names the files it lacks") {
  // /dev/zero said "the file is empty" (its size is 0) and a FIFO blocked the import forever.
  CHECK_THROWS_WITH_AS(expand_inputs({"/dev/zero"}, Format::kAuto),
                       doctest::Contains("/dev/zero: not a regular file"), culprit::UsageError);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("culprit-inputs-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "rank0.json") << "[]";
  CHECK(expand_inputs({dir.string()}, Format::kAuto).size() == 1);
  CHECK_THROWS_WITH_AS(
      expand_inputs({dir.string()}, Format::kNsys),
      doctest::Contains("holds no .sqlite or .sqlite3 files, as --format nsys reads"),
      culprit::UsageError);
  std::filesystem::remove_all(dir);
}

// ---- GPU traces: ranks inside one nsys export, emit_nvtx names, NVTX steps, kernel classes,
// GEMM FLOPs. The exports below are hand-written (labelled so): the minimal tables and columns
// of Nsight Systems' SQLite export that the reader uses, two processes on two GPUs as
// shared/traces/nsys-multi holds them.
namespace {

struct NsysRow {
  std::int64_t begin_us, end_us, global_tid_or_pid;
  std::string text;
  int device = 0;
  std::int64_t correlation = 0;
};

// A hand-written export: kernels (device, globalPid, correlation), runtime launches and NVTX
// ranges (globalTid = pid << 24 | tid).
std::string write_nsys(const std::string& name, const std::vector<NsysRow>& kernels,
                       const std::vector<NsysRow>& launches, const std::vector<NsysRow>& nvtx,
                       const std::string& extra_sql = "") {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  // one transaction, no journal: milliseconds, not a disk sync per row
  std::string sql =
      "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;"
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION_MAJOR', '3');"
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,"
      " correlationId INT, shortName INT, globalPid INT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT,"
      " correlationId INT, nameId INT);"
      "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT,"
      " textId INT);"
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel');";
  int id = 100;
  for (const NsysRow& k : kernels) {
    sql += "INSERT INTO StringIds VALUES (" + std::to_string(++id) + ", '" + k.text + "');";
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + std::to_string(k.begin_us * us) +
           "," + std::to_string(k.end_us * us) + "," + std::to_string(k.device) + ",7," +
           std::to_string(k.correlation) + "," + std::to_string(id) + "," +
           std::to_string(k.global_tid_or_pid << 24) + ");";
  }
  for (const NsysRow& l : launches) {
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + std::to_string(l.begin_us * us) +
           "," + std::to_string(l.end_us * us) + "," + std::to_string(l.global_tid_or_pid) + "," +
           std::to_string(l.correlation) + ",1);";
  }
  for (const NsysRow& n : nvtx) {
    sql += "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(n.begin_us * us) + "," +
           std::to_string(n.end_us * us) + ",59,'" + n.text + "'," +
           std::to_string(n.global_tid_or_pid) + ",NULL);";
  }
  sql += extra_sql + "COMMIT;";
  REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  return path;
}

constexpr std::int64_t kPid0 = 111, kPid1 = 112;
std::int64_t tid(std::int64_t pid) {
  return (pid << 24) | pid;
}

// Two processes (pids 111 and 112) each on its own GPU (1 and 0: device ids not in pid order),
// three "train_step" ranges each holding emit_nvtx ranges and a launched GEMM.
std::string two_process_export() {
  std::vector<NsysRow> kernels, launches, nvtx;
  for (std::int64_t pid : {kPid0, kPid1}) {
    const int device = pid == kPid0 ? 1 : 0;
    for (int s = 0; s < 3; ++s) {
      const std::int64_t t0 = 1000 + s * 100;
      const std::int64_t corr = pid * 10 + s;
      nvtx.push_back({t0, t0 + 90, tid(pid), "train_step"});
      nvtx.push_back({t0 + 10, t0 + 40, tid(pid),
                      "aten::mm, seq = " + std::to_string(40 + s) + ", op_id = " +
                          std::to_string(900 + s) + ", sizes = [[64, 32], [32, 16]]"});
      launches.push_back({t0 + 20, t0 + 22, tid(pid), "", 0, corr});
      kernels.push_back({t0 + 25, t0 + 35, pid, "sm90_xmma_gemm_bf16bf16_bf16f32", device, corr});
      // an emit_nvtx all-reduce call launching its NCCL kernel, then a SendRecv with no call
      nvtx.push_back({t0 + 50, t0 + 60, tid(pid),
                      "c10d::allreduce_, seq = " + std::to_string(70 + s) +
                          ", op_id = " + std::to_string(950 + s)});
      launches.push_back({t0 + 52, t0 + 53, tid(pid), "", 0, corr + 1000});
      kernels.push_back(
          {t0 + 55, t0 + 70, pid,
           "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", device,
           corr + 1000});
      kernels.push_back({t0 + 75, t0 + 80, pid,
                         "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", device,
                         corr + 2000});
    }
  }
  return write_nsys("culprit_two_process.sqlite", kernels, launches, nvtx);
}

}  // namespace

TEST_CASE("one nsys export with two processes is two ranks, numbered by device id") {
  const std::string path = two_process_export();  // hand-written, see above
  const std::vector<RankTrace> traces = read_traces({path}, Format::kAuto);
  REQUIRE(traces.size() == 2);
  // device ids: pid 112 drives GPU 0, so it is rank 0
  CHECK(traces[0].rank == 1);
  CHECK(traces[0].process == (kPid0 << 24));
  CHECK(traces[1].rank == 0);
  CHECK(traces[0].rank_source.find("CUDA device id") != std::string::npos);
  // emit_nvtx suffixes are cut: one name, the op_id kept in the record
  bool normalised = false;
  for (const TraceRecord& r : traces[0].records) {
    if (traces[0].names[r.name] == "aten::mm") {
      normalised = true;
      CHECK(r.kind == RecordKind::kOp);
      CHECK(r.correlation >= 900);
    }
    CHECK(traces[0].names[r.name].find("op_id") == std::string::npos);
  }
  CHECK(normalised);
  const ImportedRun run = build_run(traces, ImportOptions{});
  CHECK(run.summary.ranks == 2);
  CHECK(run.summary.steps == 3);  // the repeated outermost NVTX range
  CHECK(run.summary.rank_rule ==
        "a rank per process of the export; number from the CUDA device id");
  CHECK(run.summary.kernel_classes.at("gemm") == 6);
  CHECK(run.summary.kernel_classes.at("collective") == 12);
  // per rank and step: the all-reduce (its call and kernel paired by correlation) and the
  // SendRecv kernel without a call, matched across the two ranks of the one export
  CHECK(run.summary.collectives == 12);
  for (const std::string& w : run.summary.warnings) {
    CHECK(w.find("not in every file") == std::string::npos);
    CHECK(w.find("do not match") == std::string::npos);
  }
  int said = 0;
  for (const std::string& w : run.summary.warnings) {
    said += w.find("repeated outermost NVTX range 'train_step'") != std::string::npos;
  }
  CHECK(said == 1);  // said once, not once per rank
  for (const auto& m : run.contents.clocks) {
    CHECK(m.offset_ns == 0);  // one export, one clock
    CHECK(m.uncertainty_ns == 0);
  }
  std::filesystem::remove(path);
}

TEST_CASE("--rank-by device splits a process that drives two GPUs; process keeps it one") {
  std::vector<NsysRow> kernels, launches, nvtx;
  for (int d = 0; d < 2; ++d) {
    for (int s = 0; s < 2; ++s) {
      const std::int64_t t0 = 1000 + s * 100;
      kernels.push_back({t0 + 25, t0 + 35, kPid0, "nvjet_tst_64x64_64x16", d, 10 * d + s});
      launches.push_back({t0 + 20, t0 + 21, tid(kPid0), "", 0, 10 * d + s});
    }
  }
  for (int s = 0; s < 2; ++s) nvtx.push_back({1000 + s * 100, 1090 + s * 100, tid(kPid0), "step"});
  const std::string path = write_nsys("culprit_two_gpu.sqlite", kernels, launches, nvtx);
  const auto by_device = read_traces({path}, Format::kNsys, RankBy::kAuto);
  REQUIRE(by_device.size() == 2);  // auto: one process, two GPUs -> a rank per GPU
  CHECK(by_device[0].device == 0);
  CHECK(by_device[1].device == 1);
  CHECK(by_device[1].rank == 1);
  for (const RankTrace& t : by_device) {
    int launches_kept = 0, kernels_kept = 0;
    for (const TraceRecord& r : t.records) {
      launches_kept += r.kind == RecordKind::kRuntime;
      kernels_kept += r.on_device;
    }
    CHECK(kernels_kept == 2);
    CHECK(launches_kept == 2);  // each launch goes to its kernel's device only
  }
  const auto by_process = read_traces({path}, Format::kNsys, RankBy::kProcess);
  CHECK(by_process.size() == 1);
  CHECK_THROWS_AS(parse_rank_by("gpu"), culprit::UsageError);
  std::filesystem::remove(path);
}

TEST_CASE("a GEMM kernel takes the FLOPs of the operator that launched it, once per operator") {
  // hand-written Kineto trace: aten::addmm (bias, A [64,32], B [32,16]) launches a cuBLASLt
  // GEMM and its split-K reduction; an op without shapes launches a second GEMM
  const std::string json = R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 100,
     "args": {"Input Dims": [[16], [64, 32], [32, 16]], "Input type": ["float", "float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 8}},
    {"ph": "X", "cat": "kernel", "name": "nvjet_tst_64x16_64x16_2x4_2cta_h_bz_bias_TNT", "pid": 0, "tid": 7, "ts": 40, "dur": 10, "args": {"correlation": 7, "device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_splitk>(Params)", "pid": 0, "tid": 7, "ts": 50, "dur": 10, "args": {"correlation": 8, "device": 0, "stream": 7}},
    {"ph": "X", "cat": "cpu_op", "name": "vllm::moe_forward", "pid": 1, "tid": 1, "ts": 200, "dur": 100, "args": {"Input Dims": [[888, 3072]]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 5, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2", "pid": 0, "tid": 7, "ts": 220, "dur": 30, "args": {"correlation": 9, "device": 0, "stream": 7}}
  ]
})json";
  std::vector<RankTrace> traces;
  traces.push_back(parse_kineto(json, "rank0.json"));
  REQUIRE(traces[0].op_flops.size() == 1);
  CHECK(traces[0].op_flops[0].second == 2.0 * 64 * 16 * 32);
  const ImportedRun run = build_run(traces, ImportOptions{});
  std::map<std::string, std::string> meta(run.contents.meta.begin(), run.contents.meta.end());
  CHECK(meta.at("gemm_kernels") == "3");
  CHECK(meta.at("gemm_kernels_without_shapes") == "1");
  CHECK(std::stod(meta.at("gemm_flops")) == 2.0 * 64 * 16 * 32);  // once for two kernels
  CHECK(std::stod(meta.at("gemm_shaped_ns")) == 20 * us);
  CHECK(run.summary.kernel_classes.at("gemm") == 3);
}

TEST_CASE("a one-process export takes its rank from the launched process's environment") {
  // hand-written: `srun nsys profile python train.py` records the rank's environment
  const std::vector<NsysRow> kernels = {{1000, 1010, kPid0, "nvjet_tst_64x64", 0, 1}};
  const std::string env =
      "CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);"
      "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', 'LOCAL_RANK=\"1\"');"
      "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', "
      "'SLURM_PROCID=\"5\"');"
      "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ARGUMENT_1', '--rank=9');";
  const std::string path = write_nsys("culprit_env.sqlite", kernels, {}, {}, env);
  const std::vector<RankTrace> traces = read_traces({path}, Format::kNsys);
  REQUIRE(traces.size() == 1);
  CHECK(traces[0].rank == 5);  // SLURM_PROCID before LOCAL_RANK and the command line
  CHECK(traces[0].rank_source == "process environment SLURM_PROCID");
  std::filesystem::remove(path);
}

TEST_CASE("ranks in one export take the number each process's MPI Rank mark says") {
  // hand-written: two processes on GPUs 0 and 1 whose marks say ranks 7 and 6
  const std::vector<NsysRow> kernels = {{1000, 1010, kPid0, "nvjet_tst_64x64", 0, 1},
                                        {1000, 1010, kPid1, "nvjet_tst_64x64", 1, 2}};
  const std::string marks = "INSERT INTO NVTX_EVENTS VALUES (10, NULL, 34, 'MPI Rank 7', " +
                            std::to_string(tid(kPid0)) +
                            ", NULL);INSERT INTO NVTX_EVENTS VALUES (10, NULL, 34, 'MPI Rank 6', " +
                            std::to_string(tid(kPid1)) + ", NULL);";
  const std::string path = write_nsys("culprit_marks.sqlite", kernels, {}, {}, marks);
  const std::vector<RankTrace> traces = read_traces({path}, Format::kNsys);
  REQUIRE(traces.size() == 2);
  CHECK(traces[0].rank == 7);
  CHECK(traces[1].rank == 6);
  CHECK(traces[0].rank_source.rfind("the rank each process says", 0) == 0);
  // --rank-by device numbers by device, not by the process's mark
  const std::vector<RankTrace> by_device = read_traces({path}, Format::kNsys, RankBy::kDevice);
  REQUIRE(by_device.size() == 2);
  CHECK(by_device[0].rank == 0);
  CHECK(by_device[1].rank == 1);
  std::filesystem::remove(path);
}

namespace {

// A hand-written export of one node: host `host`, one process per GPU (pids 111, 112, ... on
// GPUs 0, 1, ...), each running one GEMM; `extra_sql` adds what the test needs.
std::string node_export(const std::string& name, const std::string& host, int gpus,
                        const std::string& extra_sql = "") {
  std::vector<NsysRow> kernels;
  for (int g = 0; g < gpus; ++g)
    kernels.push_back({1000, 1010, kPid0 + g, "nvjet_tst_64x64", g, g});
  return write_nsys(name, kernels, {}, {},
                    "CREATE TABLE TARGET_INFO_SYSTEM_ENV (name TEXT, value TEXT);"
                    "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES ('Hostname', '" +
                        host + "');" + extra_sql);
}

std::string launch_env(const std::string& assignment) {
  return "CREATE TABLE IF NOT EXISTS META_DATA_CAPTURE (name TEXT, value TEXT);"
         "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', '" +
         assignment + "');";
}

// (file, device) -> rank of the traces read.
std::map<std::pair<std::string, int>, int> ranks_by_file_and_device(
    const std::vector<RankTrace>& traces) {
  std::map<std::pair<std::string, int>, int> out;
  for (const RankTrace& t : traces) {
    int device = -1;
    for (const TraceRecord& r : t.records) device = r.on_device ? r.device : device;
    const std::string base = t.file.substr(t.file.find_last_of('/') + 1);
    out[{base, device}] = t.rank;
  }
  return out;
}

}  // namespace

TEST_CASE("per-node exports whose GPUs collide: device id within the node plus the node's offset") {
  // hand-written: two nodes, each one export of two processes on GPUs 0 and 1 (same pids too)
  const std::string a = node_export("culprit_node_a.sqlite", "gpu-a", 2);
  const std::string b = node_export("culprit_node_b.sqlite", "gpu-b", 2);
  std::vector<RankTrace> traces = read_traces({a, b}, Format::kNsys);
  REQUIRE(traces.size() == 4);
  using Key = std::pair<std::string, int>;
  const std::map<Key, int> expected = {{{"culprit_node_a.sqlite", 0}, 0},
                                       {{"culprit_node_a.sqlite", 1}, 1},
                                       {{"culprit_node_b.sqlite", 0}, 2},
                                       {{"culprit_node_b.sqlite", 1}, 3}};
  CHECK(ranks_by_file_and_device(traces) == expected);
  const ImportedRun run = build_run(traces, ImportOptions{});
  CHECK(run.summary.ranks == 4);
  CHECK(run.summary.rank_rule ==
        "a rank per process of the export; number from the CUDA device id within its node plus "
        "the node's offset (nodes by host name in the files' order, each after the ranks of "
        "those before it)");
  // The files' order decides without NODE_RANK; with it, the node's index does.
  CHECK(ranks_by_file_and_device(read_traces({b, a}, Format::kNsys))
            .at({"culprit_node_b.sqlite", 0}) == 0);
  const std::string a1 =
      node_export("culprit_node_a.sqlite", "gpu-a", 2, launch_env("NODE_RANK=1"));
  const std::string b0 = node_export("culprit_node_b.sqlite", "gpu-b", 2,
                                     launch_env("GROUP_RANK=\"0\"") + launch_env("NODE_RANK=0"));
  traces = read_traces({a1, b0}, Format::kNsys);
  CHECK(ranks_by_file_and_device(traces) == std::map<Key, int>{{{"culprit_node_b.sqlite", 0}, 0},
                                                               {{"culprit_node_b.sqlite", 1}, 1},
                                                               {{"culprit_node_a.sqlite", 0}, 2},
                                                               {{"culprit_node_a.sqlite", 1}, 3}});
  CHECK(traces[0].rank_source.find("nodes numbered by process environment NODE_RANK x 2 ranks") !=
        std::string::npos);
  // Only node 1 given: its ranks keep their numbers (a partial import of ranks 2 and 3).
  traces = read_traces({a1}, Format::kNsys);
  REQUIRE(traces.size() == 2);
  CHECK(traces[0].rank == 2);
  CHECK(traces[1].rank == 3);
  CHECK_THROWS_WITH_AS(build_run(traces, ImportOptions{}),
                       doctest::Contains("missing rank(s) 0, 1"), culprit::UsageError);
  ImportOptions partial;
  partial.partial = true;
  CHECK(build_run(traces, partial).summary.world_size == 4);
  std::filesystem::remove(a1);
  std::filesystem::remove(b0);
}

TEST_CASE("per-rank exports on two hosts are numbered by LOCAL_RANK within the host") {
  // hand-written: four one-process exports, two per host, each launched with its LOCAL_RANK
  std::vector<std::string> files;
  for (const auto& [host, local] :
       std::vector<std::pair<std::string, int>>{{"h1", 1}, {"h1", 0}, {"h2", 1}, {"h2", 0}}) {
    const std::string name = "culprit_lr_" + host + "_" + std::to_string(local) + ".sqlite";
    std::vector<NsysRow> kernels = {{1000, 1010, kPid0, "nvjet_tst_64x64", 0, 1}};
    files.push_back(write_nsys(name, kernels, {}, {},
                               "CREATE TABLE TARGET_INFO_SYSTEM_ENV (name TEXT, value TEXT);"
                               "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES ('Hostname', '" +
                                   host + "');" +
                                   launch_env("LOCAL_RANK=" + std::to_string(local))));
  }
  const std::vector<RankTrace> traces = read_traces(files, Format::kNsys);
  REQUIRE(traces.size() == 4);
  const std::vector<int> expected = {1, 0, 3, 2};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(traces[i].rank == expected[i]);
    CHECK(traces[i].rank_source.rfind("LOCAL_RANK within its node plus the node's offset", 0) == 0);
  }
  for (const std::string& f : files) std::filesystem::remove(f);
}

TEST_CASE("ranks in one export take the rank NCCL's communicator payload says") {
  // hand-written: NCCL's ncclCommInitRank ranges with their typed payload as JSON text; each
  // process is in the world communicator (8 ranks) and in a 2-rank one
  const std::vector<NsysRow> kernels = {{1000, 1010, kPid0, "nvjet_tst_64x64", 0, 1},
                                        {1000, 1010, kPid1, "nvjet_tst_64x64", 1, 2}};
  std::string sql = "ALTER TABLE NVTX_EVENTS ADD COLUMN jsonText TEXT;";
  for (const auto& [pid, world, pair] :
       std::vector<std::tuple<std::int64_t, int, int>>{{kPid0, 5, 1}, {kPid1, 4, 0}}) {
    for (const auto& [size, rank] : {std::pair{2, pair}, std::pair{8, world}}) {
      sql +=
          "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, jsonText) VALUES "
          "(10, 20, 59, 'ncclCommInitRank', " +
          std::to_string(tid(pid)) +
          ", '{\"NCCL communicator ID\": 1234, \"No. of ranks\": " + std::to_string(size) +
          ", \"Rank\": " + std::to_string(rank) + ", \"CUDA device\": 0}');";
    }
  }
  const std::string path = write_nsys("culprit_nccl_ranks.sqlite", kernels, {}, {}, sql);
  const std::vector<RankTrace> traces = read_traces({path}, Format::kNsys);
  REQUIRE(traces.size() == 2);
  CHECK(traces[0].rank == 5);
  CHECK(traces[1].rank == 4);
  CHECK(traces[0].rank_source ==
        "the rank each process says (NCCL communicator rank) (process 111, GPU 0)");
  std::filesystem::remove(path);
}

TEST_CASE("without a Seq, the k-th collective of its name is the k-th on every rank") {
  // hand-written: rank 0 issued an all-reduce then an all-to-all in one group; rank 1's trace
  // (sampled) lost its all-reduce. The all-to-alls are one collective; the all-reduce is missing
  // on rank 1, not compared with the all-to-all.
  std::vector<RankTrace> traces;
  for (int r = 0; r < 2; ++r) {
    RankTrace t;
    t.file = "rank" + std::to_string(r) + ".json";
    t.rank = r;
    rec(t, "ProfilerStep#1", RecordKind::kLabel, 0, 1000);
    if (r == 0) rec(t, "c10d::allreduce_", RecordKind::kOp, 100, 110);
    rec(t, "c10d::alltoall_base_", RecordKind::kOp, 200, 210);
    traces.push_back(std::move(t));
  }
  std::vector<std::vector<RankCollective>> colls = matched_collectives(traces);
  REQUIRE(colls[0].size() == 2);
  REQUIRE(colls[1].size() == 1);
  CHECK(colls[1][0].ordinal == colls[0][1].ordinal);  // the all-to-all
  CHECK(colls[0][0].ordinal != colls[0][1].ordinal);
  const CollectiveCheck check = check_collectives(traces, colls, false);  // no name mismatch
  REQUIRE(check.warnings.size() == 1);
  CHECK(check.warnings[0].find("collective #0 is missing in rank1.json") != std::string::npos);
}

TEST_CASE("NCCL's own NVTX calls give nsys collectives their bytes and communicator") {
  // hand-written: two processes (GPUs 0 and 1), one step each: NCCL's ncclAllReduce range with
  // its payload as JSON text (a communicator id beyond int64, 4 MiB), the kernel it launched,
  // and a SendRecv kernel with no call; ncclCommInitRank is no collective
  std::vector<NsysRow> kernels, launches, nvtx;
  for (std::int64_t pid : {kPid0, kPid1}) {
    const int device = pid == kPid0 ? 0 : 1;
    nvtx.push_back({1000, 1090, tid(pid), "train_step"});
    launches.push_back({1052, 1053, tid(pid), "", 0, pid * 10});
    kernels.push_back(
        {1055, 1070, pid, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", device, pid * 10});
    kernels.push_back({1075, 1080, pid, "ncclDevKernel_SendRecv", device, pid * 10 + 1});
  }
  std::string sql = "ALTER TABLE NVTX_EVENTS ADD COLUMN jsonText TEXT;";
  for (std::int64_t pid : {kPid0, kPid1}) {
    sql +=
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, jsonText) VALUES "
        "(1050000, 1060000, 59, 'ncclAllReduce', " +
        std::to_string(tid(pid)) +
        ", '{\"NCCL communicator ID\": 18446744073709551557, \"Message size [bytes]\": "
        "4194304, \"Reduction operation\": \"Sum\"}');"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, jsonText) VALUES "
        "(1010000, 1020000, 59, 'ncclCommInitRank', " +
        std::to_string(tid(pid)) +
        ", '{\"NCCL communicator ID\": 18446744073709551557, \"No. of ranks\": 2, \"Rank\": " +
        std::to_string(pid == kPid0 ? 0 : 1) + "}');";
  }
  const std::string path = write_nsys("culprit_nccl_calls.sqlite", kernels, launches, nvtx, sql);
  const ImportedRun run = build_run(read_traces({path}, Format::kNsys), ImportOptions{});
  CHECK(run.summary.rank_rule ==
        "a rank per process of the export; number from the rank each process says (NCCL "
        "communicator rank)");
  CHECK(run.summary.collectives == 4);  // per rank: the all-reduce call, the SendRecv kernel
  int all_reduce = 0, send_recv = 0;
  for (const auto& e : run.contents.events) {
    if (e.kind != runfile::EventKind::kCollective) continue;
    const std::string& name = run.contents.names[e.name];
    if (name == "ncclAllReduce") {
      ++all_reduce;
      CHECK(e.bytes == 4194304);
      CHECK(e.end_ns == 1070 * us);  // completion: the end of its kernel
    } else {
      ++send_recv;
      CHECK(name == "ncclDevKernel_SendRecv");
      CHECK(e.bytes == 0);  // no message size: no bandwidth from it
    }
  }
  CHECK(all_reduce == 2);
  CHECK(send_recv == 2);
  for (const std::string& w : run.summary.warnings)
    CHECK(w.find("not in every file") == std::string::npos);
  CHECK_FALSE(is_collective_call("ncclCommInitRank"));
  CHECK_FALSE(is_collective_call("ncclSend"));
  CHECK(is_collective_call("ncclReduceScatter"));
  std::filesystem::remove(path);
}

TEST_CASE("one export of one rank that says only its LOCAL_RANK keeps it as its number") {
  // hand-written: `torchrun ... nsys profile python train.py` on one node, rank 1's export
  const std::vector<NsysRow> kernels = {{1000, 1010, kPid0, "nvjet_tst_64x64", 1, 1}};
  const std::string path =
      write_nsys("culprit_local_only.sqlite", kernels, {}, {}, launch_env("LOCAL_RANK=1"));
  const std::vector<RankTrace> traces = read_traces({path}, Format::kNsys);
  REQUIRE(traces.size() == 1);
  CHECK(traces[0].rank == 1);  // not "rank 0 of a 1-rank job"
  CHECK(traces[0].rank_source.rfind("LOCAL_RANK within its node", 0) == 0);
  CHECK_THROWS_WITH_AS(build_run(traces, ImportOptions{}), doctest::Contains("missing rank(s) 0"),
                       culprit::UsageError);
  std::filesystem::remove(path);
}

namespace {

// A hand-written export of a 3-stage pipeline (ranks 0 -> 1 -> 2, one process per GPU): NCCL's
// ncclSend/ncclRecv ranges with their payload (communicator 77, 4 KiB, the peer), each around
// the launch of the SendRecv kernel it runs; with `init`, each process's ncclCommInitRank
// payload says its rank in communicator 77.
std::string pipeline_export(const std::string& name, bool init) {
  struct Side {
    std::int64_t pid;
    int rank;
    const char* call;
    int peer;
    std::int64_t at;  // us
  };
  const std::vector<Side> sides = {{kPid0, 0, "ncclSend", 1, 1050},
                                   {kPid1, 1, "ncclRecv", 0, 1050},
                                   {kPid1, 1, "ncclSend", 2, 1100},
                                   {kPid1 + 1, 2, "ncclRecv", 1, 1100}};
  std::vector<NsysRow> kernels, launches;
  std::string sql = "ALTER TABLE NVTX_EVENTS ADD COLUMN jsonText TEXT;";
  auto range = [&](std::int64_t pid, std::int64_t begin, const std::string& text,
                   const std::string& json) {
    sql += "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, jsonText) VALUES (" +
           std::to_string(begin * us) + ", " + std::to_string((begin + 10) * us) + ", 59, '" +
           text + "', " + std::to_string(tid(pid)) + ", '" + json + "');";
  };
  std::int64_t corr = 1;
  for (const Side& x : sides) {
    range(x.pid, x.at, x.call,
          "{\"NCCL communicator ID\": 77, \"Message size [bytes]\": 4096, \"Peer rank\": " +
              std::to_string(x.peer) + "}");
    launches.push_back({x.at + 2, x.at + 3, tid(x.pid), "", 0, corr});
    kernels.push_back({x.at + 5, x.at + 20, x.pid, "ncclDevKernel_SendRecv", x.rank, corr++});
  }
  for (int r = 0; r < 3 && init; ++r) {
    range(
        kPid0 + r, 10, "ncclCommInitRank",
        "{\"NCCL communicator ID\": 77, \"No. of ranks\": 3, \"Rank\": " + std::to_string(r) + "}");
  }
  return write_nsys(name, kernels, launches, {}, sql);
}

// (rank, seq) of every stored collective, and its bytes.
std::map<std::pair<int, int>, std::int64_t> collective_slots(const ImportedRun& run) {
  std::map<std::pair<int, int>, std::int64_t> out;
  for (const auto& e : run.contents.events) {
    if (e.kind == runfile::EventKind::kCollective) out[{e.rank, e.seq}] = e.bytes;
  }
  return out;
}

}  // namespace

TEST_CASE("an NCCL SendRecv pairs between the two ranks that exchange, by the payload's peer") {
  const std::string path = pipeline_export("culprit_pipeline.sqlite", true);
  const ImportedRun run = build_run(read_traces({path}, Format::kNsys), ImportOptions{});
  REQUIRE(run.summary.ranks == 3);
  const auto slots = collective_slots(run);
  REQUIRE(slots.size() == 4);
  // The exchange 0-1 has one seq on ranks 0 and 1 only; the exchange 1-2 another on 1 and 2.
  int first = -1, second = -1;
  for (const auto& [key, bytes] : slots) {
    CHECK(bytes == 4096);  // the payload's size: the SendRecv kernel itself says none
    if (key.first == 0) first = key.second;
    if (key.first == 2) second = key.second;
  }
  CHECK(first != second);
  CHECK(slots.count({1, first}) == 1);
  CHECK(slots.count({1, second}) == 1);
  CHECK(slots.count({2, first}) == 0);
  CHECK(slots.count({0, second}) == 0);
  for (const std::string& w : run.summary.warnings)
    CHECK(w.find("do not match") == std::string::npos);
  std::filesystem::remove(path);

  // Without a communicator's creation in the capture, a process's own rank in it is unknown:
  // the exchanges pair by order per communicator (the first SendRecv of every rank together).
  const std::string blind = pipeline_export("culprit_pipeline_blind.sqlite", false);
  const ImportedRun order = build_run(read_traces({blind}, Format::kNsys), ImportOptions{});
  const auto by_order = collective_slots(order);
  int together = 0;
  for (const auto& [key, bytes] : by_order) together += key.second == 0;
  CHECK(together == 3);
  std::filesystem::remove(blind);
}
