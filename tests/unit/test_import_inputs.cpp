// Importer inputs that lie or are laid out unusually (issue 38 items 4, 5 and 14): each case
// failed on main before its fix. Trace texts here are hand-written in the layouts torch writes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "culprit/common/named_file.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"
#include "culprit/importers/input.hpp"
#include "culprit/importers/kineto.hpp"
#include "culprit/importers/mapping.hpp"

using namespace culprit::importers;

namespace {

namespace fs = std::filesystem;

// A Kineto file of rank `rank`: `info` inside distributedInfo, then `events` in traceEvents.
std::string kineto(const std::string& info, const std::string& events) {
  return "{\"distributedInfo\": {" + info + "}, \"traceEvents\": [" + events + "]}";
}

std::string x_event(const std::string& name, long ts, long dur, const std::string& cat = "cpu_op") {
  return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
         "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) +
         ", \"dur\": " + std::to_string(dur) + "}";
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("culprit_unit_import_inputs_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Rank r of a Kineto job: steps ProfilerStep#1..#4 of 10 ms from `t0` (ns), an all-reduce in
// each, completing 8 ms into its step; `label_shift` renumbers the steps.
RankTrace stepped_rank(int r, std::int64_t t0, int label_shift = 0) {
  RankTrace t;
  t.file = "rank" + std::to_string(r) + ".json";
  t.format = "kineto";
  t.rank = r;
  t.world_size = 2;
  t.rank_source = "distributedInfo";
  for (int s = 1; s <= 4; ++s) {
    const std::int64_t at = t0 + (s - 1) * 10'000'000;
    auto add = [&](const std::string& name, RecordKind kind, std::int64_t b, std::int64_t e,
                   std::int64_t thread) {
      TraceRecord x;
      x.name = t.names.intern(name);
      x.kind = kind;
      x.begin_ns = b;
      x.end_ns = e;
      x.thread = thread;
      t.records.push_back(x);
    };
    add("ProfilerStep#" + std::to_string(s + label_shift), RecordKind::kLabel, at, at + 10'000'000,
        1);
    add("layer0", RecordKind::kLabel, at + 100'000, at + 5'000'000, 1);
    add("c10d::allreduce_", RecordKind::kOp, at + 6'000'000, at + 6'010'000, 1);
    add("gloo:all_reduce", RecordKind::kCollectiveWork, at + 6'020'000, at + 8'000'000, 2);
  }
  return t;
}

}  // namespace

TEST_CASE("files of two jobs are refused, with --partial too (issue 38 item 4)") {
  ImportOptions partial;
  partial.partial = true;
  // World sizes 2 and 4 passed with --partial.
  std::vector<RankTrace> sizes{stepped_rank(0, 0), stepped_rank(1, 0)};
  sizes[1].world_size = 4;
  CHECK_THROWS_WITH_AS(build_run(sizes, partial),
                       doctest::Contains("rank0.json and rank1.json are not of one job: their "
                                         "world sizes differ (2 and 4)"),
                       culprit::UsageError);
  // The same process group with other ranks.
  std::vector<RankTrace> groups{stepped_rank(0, 0), stepped_rank(1, 0)};
  groups[0].group_ranks["0"] = {0, 1};
  groups[1].group_ranks["0"] = {0, 1, 2, 3};
  CHECK_THROWS_WITH_AS(build_run(groups, partial),
                       doctest::Contains("their process group '0' (distributedInfo.pg_config) "
                                         "has other ranks"),
                       culprit::UsageError);
  // Rank 0 of one job, rank 1 of another captured 3.9 s later: only a clock warning before.
  constexpr std::int64_t epoch = 1'796'000'000'000'000'000;
  std::vector<RankTrace> apart{stepped_rank(0, epoch), stepped_rank(1, epoch + 3'900'000'000)};
  CHECK_THROWS_WITH_AS(build_run(apart, partial),
                       doctest::Contains("they were captured 3860.00 ms apart, in different "
                                         "profiling windows"),
                       culprit::UsageError);
  // One job, hosts' clocks 3 ms apart: imported.
  std::vector<RankTrace> one{stepped_rank(0, epoch), stepped_rank(1, epoch + 3'000'000)};
  CHECK(build_run(one, ImportOptions{}).summary.ranks == 2);
}

TEST_CASE("one rank's step labels shifted by one are said first (issue 38 item 4)") {
  // Rank 1's ProfilerStep#N is rank 0's N-1: matched by number, every pair is of different
  // iterations; the median step went from 30.25 to 33.94 ms without a word.
  std::vector<RankTrace> traces{stepped_rank(0, 0), stepped_rank(1, 0, 1)};
  const ImportedRun run = build_run(traces, ImportOptions{});
  REQUIRE_FALSE(run.summary.warnings.empty());
  CHECK(run.summary.warnings[0].find("STEP NUMBERS DISAGREE: rank1.json's collectives complete "
                                     "10.00 ms from rank0.json's") == 0);
  std::vector<RankTrace> aligned{stepped_rank(0, 0), stepped_rank(1, 2'000'000)};
  for (const std::string& w : build_run(aligned, ImportOptions{}).summary.warnings)
    CHECK(w.find("STEP NUMBERS") == std::string::npos);
}

TEST_CASE("ph B/E pairs are read; ph X without dur names the event (issue 38 item 5)") {
  const std::string be = kineto(
      "\"rank\": 0",
      R"({"ph": "B", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0},)"
      R"({"ph": "B", "cat": "user_annotation", "name": "layer0", "pid": 1, "tid": 1, "ts": 10},)"
      R"({"ph": "E", "pid": 1, "tid": 1, "ts": 40},)"
      R"({"ph": "E", "pid": 1, "tid": 1, "ts": 100})");
  const RankTrace t = parse_kineto(be, "be.json");
  REQUIRE(t.records.size() == 2);
  CHECK(t.names[t.records[0].name] == "layer0");
  CHECK(t.records[0].begin_ns == 10'000);
  CHECK(t.records[0].end_ns == 40'000);
  CHECK(t.records[0].kind == RecordKind::kLabel);
  CHECK(t.names[t.records[1].name] == "ProfilerStep#1");
  CHECK(t.records[1].end_ns == 100'000);
  CHECK(t.warnings.empty());
  // An unended B is said, not kept.
  const std::string open = kineto(
      "\"rank\": 0",
      R"({"ph": "B", "cat": "user_annotation", "name": "layer0", "pid": 1, "tid": 1, "ts": 10})");
  CHECK(parse_kineto(open, "o.json")
            .warnings.at(0)
            .find("1 duration event(s) (ph B) never "
                  "ended") != std::string::npos);

  const std::string no_dur = kineto("\"rank\": 0", R"({"ph": "X", "cat": "cpu_op", )"
                                                   R"("name": "aten::mm", "ts": 5})");
  CHECK_THROWS_WITH_AS(parse_kineto(no_dur, "k.json"),
                       doctest::Contains("k.json: byte offset 49: event 'aten::mm' (ph X) has "
                                         "no dur"),
                       culprit::UsageError);
  const std::string legacy = R"([{"name": "layer0", "ph": "X", "ts": 1, "tid": 1}])";
  CHECK_THROWS_WITH_AS(parse_legacy(legacy, "rank0.json"),
                       doctest::Contains("event 'layer0' (ph X) has no dur"), culprit::UsageError);
}

TEST_CASE("invalid UTF-8 is replaced in legacy names and refused in Kineto, with its offset") {
  // A legacy label in Latin-1 was accepted, and export --format perfetto then wrote invalid
  // UTF-8 (issue 38 item 5).
  const std::string legacy =
      "[{\"name\": \"caf\xE9\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2, "
      "\"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}]";
  const RankTrace t = parse_legacy(legacy, "rank0.json");
  REQUIRE(t.records.size() == 1);
  CHECK(t.names[t.records[0].name] == "caf\xEF\xBF\xBD");
  REQUIRE(t.warnings.size() == 2);
  CHECK(t.warnings[0].find("rank0.json: byte offset 14: 1 event name(s) are not valid UTF-8") == 0);
  const std::string bad = kineto("\"rank\": 0", x_event("caf\xE9", 1, 2));
  CHECK_THROWS_WITH_AS(parse_kineto(bad, "k.json"),
                       doctest::Contains("k.json: byte offset 90: not valid UTF-8"),
                       culprit::UsageError);
  CHECK(first_invalid_utf8("ok \xE2\x82\xAC") == std::string::npos);
  CHECK(first_invalid_utf8("\xED\xA0\x80") == 0);                             // a surrogate
  CHECK(replace_invalid_utf8("a\xC0\xAFz") == "a\xEF\xBF\xBD\xEF\xBF\xBDz");  // overlong
}

TEST_CASE("distributedInfo.rank as a writer may spell it (issue 38 item 14)") {
  for (const char* spelling : {"1", "1.0", "\"1\""}) {
    const std::string text =
        kineto(std::string("\"rank\": ") + spelling + ", \"world_size\": 2", x_event("a", 1, 2));
    const RankTrace t = parse_kineto(text, "run/trace.json");
    CHECK(t.rank == 1);
    CHECK(t.rank_source == "distributedInfo");
  }
  // 1.5 was replaced by the file name's rank without a word.
  CHECK_THROWS_WITH_AS(
      parse_kineto(kineto("\"rank\": 1.5", x_event("a", 1, 2)), "rank1.json"),
      doctest::Contains("rank1.json: distributedInfo.rank is 1.5: not a whole number"),
      culprit::UsageError);
  CHECK_THROWS_WITH_AS(parse_kineto(kineto("\"rank\": 0, \"world_size\": \"two\"", ""), "k.json"),
                       doctest::Contains("distributedInfo.world_size is \"two\""),
                       culprit::UsageError);
  // rank1.json saying rank 0 was taken silently.
  const RankTrace named = parse_kineto(kineto("\"rank\": 0", x_event("a", 1, 2)), "d/rank1.json");
  CHECK(named.rank == 0);
  REQUIRE(named.warnings.size() == 1);
  CHECK(named.warnings[0] ==
        "d/rank1.json: the file name says rank 1 but distributedInfo.rank is 0: "
        "distributedInfo wins (rank 0); rename the file if it is right");
}

TEST_CASE("a byte-order mark is read; a folder's config.json, .JSON and subfolders") {
  const fs::path dir = fresh_dir("folder");
  // A UTF-8 BOM was "not a profiler trace" (issue 38 item 14).
  write(dir / "rank0.json", "\xEF\xBB\xBF" + kineto("\"rank\": 0", x_event("a", 1, 2)));
  CHECK(read_trace((dir / "rank0.json").string(), Format::kAuto).rank == 0);
  // A config.json beside the traces refused the whole folder.
  write(dir / "config.json", R"({"lr": 0.01, "batch": 64})");
  std::vector<std::string> notes;
  const auto files = expand_inputs({dir.string()}, Format::kAuto, &notes);
  REQUIRE(files.size() == 1);
  CHECK(files[0] == (dir / "rank0.json").string());
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == (dir / "config.json").string() +
                        ": not a profiler trace (no traceEvents): left out of the folder's files");
  // .JSON and traces one folder down gave "holds no trace file" without a hint.
  const fs::path upper = fresh_dir("upper");
  write(upper / "RANK0.JSON", "[]");
  CHECK_THROWS_WITH_AS(expand_inputs({upper.string()}, Format::kAuto),
                       doctest::Contains("(RANK0.JSON has an upper-case extension: rename it in "
                                         "lower case, or give the file itself)"),
                       culprit::UsageError);
  const fs::path outer = fresh_dir("outer");
  fs::create_directories(outer / "job1");
  write(outer / "job1" / "rank0.json", "[]");
  const std::string below = (outer / "job1").string() + " holds trace files: give that folder";
  CHECK_THROWS_WITH_AS(expand_inputs({outer.string()}, Format::kAuto),
                       doctest::Contains(below.c_str()), culprit::UsageError);
  fs::remove_all(dir);
  fs::remove_all(upper);
  fs::remove_all(outer);
}

TEST_CASE("a named file: its bytes whole, a folder and a missing path said as such") {
  const fs::path dir = fresh_dir("named");
  // Binary bytes, NULs included, over several of the reader's 64 KiB chunks and not a multiple.
  std::string bytes;
  for (int i = 0; i < 200'003; ++i) bytes.push_back(static_cast<char>((i * 7919) % 256));
  write(dir / "blob.bin", bytes);
  const std::string read = culprit::read_named_file((dir / "blob.bin").string(), "a blob");
  CHECK(read == bytes);
  CHECK(read.capacity() >= bytes.size() + 64);  // a JSON tokenizer's padding, no copy
  write(dir / "empty.csv", "");
  CHECK(culprit::read_named_file((dir / "empty.csv").string(), "a blob").empty());
  // A folder opened as a stream failed inside the library: "basic_filebuf::underflow error
  // reading the file: Is a directory", exit 1 (`culprit why FOLDER`).
  CHECK_THROWS_WITH_AS(
      culprit::read_named_file(dir.string(), "an ncu CSV export"),
      (dir.string() + ": is a folder, not an ncu CSV export; name the file itself").c_str(),
      culprit::UsageError);
  CHECK_THROWS_WITH_AS(
      culprit::read_named_file((dir / "none.csv").string(), "a peaks file"),
      ((dir / "none.csv").string() + ": no such file; check the path to a peaks file").c_str(),
      culprit::UsageError);
  // The trace reader goes through it.
  CHECK_THROWS_WITH_AS(
      read_input(dir.string()),
      (dir.string() + ": is a folder, not a profiler trace; name the file itself").c_str(),
      culprit::UsageError);
  fs::remove_all(dir);
}
