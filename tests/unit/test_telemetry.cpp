// GPU telemetry readers (importers/telemetry): the real NVML CSV of shared/counters, and
// hand-written inputs (labelled) in the shapes dcgm-exporter, dcgmi dmon and nvidia-smi write.
// Known values of nvml.csv read with python3's csv module: 293 rows, SM clock 1027..2865 MHz,
// first row 2026-07-22T21:41:45.304Z = 1784756505.304 Unix seconds.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/importers/telemetry.hpp"

using namespace culprit::importers::telemetry;

namespace {

std::vector<Sample> of(const Series& s, const std::string& field) {
  std::vector<Sample> out;
  for (const Sample& x : s.samples) {
    if (x.field == field) out.push_back(x);
  }
  return out;
}

}  // namespace

TEST_CASE("real: roofline-profiler/nvml.csv, timestamped samples of one GPU") {
  const Series s =
      read_telemetry(CULPRIT_COUNTERS_DIR "/roofline-profiler/nvml.csv", Format::kNvmlCsv);
  CHECK(s.samples.size() == 293 * 5);
  CHECK(s.timestamps());
  const auto clocks = of(s, "SM_CLOCK");
  REQUIRE(clocks.size() == 293);
  CHECK(clocks.front().value == 1027e6);
  CHECK(clocks.front().time_s.value() == doctest::Approx(1784756505.304).epsilon(1e-12));
  CHECK(clocks.front().line == 2);
  CHECK(clocks.back().index == 292);
  const auto [lo, hi] = std::minmax_element(clocks.begin(), clocks.end(),
                                            [](auto& a, auto& b) { return a.value < b.value; });
  CHECK(lo->value == 1027e6);
  CHECK(hi->value == 2865e6);
  CHECK(of(s, "MEM_CLOCK").front().value == 14001e6);
  CHECK(of(s, "POWER").front().value == doctest::Approx(25.864));
  CHECK(of(s, "TEMPERATURE").front().value == 40);
  CHECK(of(s, "GPU_UTIL").back().value == 99);
}

TEST_CASE("hand-written: dcgm-exporter text, labels or none, HELP/TYPE, scrapes with timestamps") {
  const std::string text =
      "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n"
      "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"node7\"} 1410 1706695200123\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"1\",UUID=\"GPU-b\",Hostname=\"node7\"} 990 1706695200123\n"
      "DCGM_FI_PROF_SM_UTIL_RATIO{gpu=\"0\",Hostname=\"node7\"} 0.75 1706695200123\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 1024 1706695200123\n"  // not kept
      "DCGM_FI_DEV_POWER_USAGE 301.5\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",Hostname=\"node7\"} 1400 1706695201123\n";
  const Series s = parse_telemetry(text, "dcgm.prom", Format::kDcgm);
  const auto clocks = of(s, "SM_CLOCK");
  REQUIRE(clocks.size() == 3);
  CHECK(clocks[0].gpu == 0);
  CHECK(clocks[0].host == "node7");
  CHECK(clocks[0].value == 1410e6);
  CHECK(clocks[0].time_s.value() == doctest::Approx(1706695200.123));
  CHECK(clocks[1].gpu == 1);
  CHECK(clocks[2].index == 1);                                     // GPU 0's second scrape
  CHECK(of(s, "SM_ACTIVE").at(0).value == doctest::Approx(75.0));  // ratio -> %
  CHECK(of(s, "POWER").at(0).gpu == 0);
  CHECK_FALSE(of(s, "POWER").at(0).time_s);
  CHECK_FALSE(s.timestamps());
}

TEST_CASE("hand-written: dcgmi dmon, header repeated, GPU rows in any order, N/A") {
  const std::string text =
      "#Entity   SMCLK  POWER  SMACT\n"
      "ID        MHZ    W\n"
      "GPU 1     1980   400.1  0.910\n"
      "GPU 0     1386   390.0  N/A\n"
      "#Entity   SMCLK  POWER  SMACT\n"
      "ID        MHZ    W\n"
      "GPU 0     1390   391.0  0.500\n";
  const Series s = parse_telemetry(text, "dmon.txt", Format::kDcgm);
  CHECK(s.format == Format::kDcgmDmon);
  const auto clocks = of(s, "SM_CLOCK");
  REQUIRE(clocks.size() == 3);
  CHECK(clocks[0].gpu == 1);
  CHECK(clocks[1].gpu == 0);
  CHECK(clocks[2].index == 1);
  CHECK(clocks[2].value == 1390e6);
  CHECK(of(s, "SM_ACTIVE").size() == 2);  // N/A left out
  CHECK(of(s, "SM_ACTIVE")[1].value == doctest::Approx(50.0));
  CHECK_FALSE(s.timestamps());  // needs --start and --period-ms to be placed in time
}

TEST_CASE("hand-written: nvidia-smi --query-gpu csv, units in the header, [N/A]") {
  const std::string text =
      "timestamp, index, utilization.gpu [%], clocks.sm [MHz], power.draw [W], "
      "temperature.gpu, clocks_throttle_reasons.active\n"
      "2024/01/31 10:00:00.123, 0, 98 %, 1410 MHz, 250.30 W, 65, 0x0000000000000000\n"
      "2024/01/31 10:00:00.123, 1, 97 %, 990 MHz, [N/A], 88, 0x0000000000000020\n";
  const Series s = parse_telemetry(text, "smi.csv", Format::kNvidiaSmi);
  const auto clocks = of(s, "SM_CLOCK");
  REQUIRE(clocks.size() == 2);
  CHECK(clocks[1].gpu == 1);
  CHECK(clocks[1].value == 990e6);
  CHECK(clocks[0].time_s.value() == doctest::Approx(1706695200.123));
  CHECK(of(s, "POWER").size() == 1);
  CHECK(of(s, "CLOCK_THROTTLE_REASONS")[1].value == 32);
  CHECK(of(s, "GPU_UTIL")[0].value == 98);
}

TEST_CASE("telemetry refusals name the file and line") {
  CHECK_THROWS_WITH_AS(parse_telemetry("a,b\n1,2\n", "x.csv", Format::kNvmlCsv),
                       "x.csv:1: no telemetry column in the header", culprit::UsageError);
  CHECK_THROWS_WITH_AS(
      parse_telemetry("timestamp,power_w\nyesterday,3\n", "y.csv", Format::kNvmlCsv),
      "y.csv:2: timestamp \"yesterday\" unread", culprit::UsageError);
  CHECK_THROWS_WITH_AS(parse_telemetry("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\" 5\n", "z", Format::kDcgm),
                       "z:1: a '{' of labels is not closed", culprit::UsageError);
  CHECK_THROWS_AS(parse_telemetry("# nothing\n", "e", Format::kDcgm), culprit::UsageError);
  CHECK_THROWS_AS(parse_format("prometheus"), culprit::UsageError);
}
