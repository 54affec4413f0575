// The Nsight Compute CSV reader (importers/ncu) on every real export in shared/counters, and
// one hand-written input (labelled) per quirk those files lack. The known values of the real
// files were read independently of this reader, by hand with
//   awk -F'","' '/^"[0-9]/ {print $5, "|", $13, "|", $14, "|", $15}' FILE
// and are stated below.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/importers/ncu.hpp"
#include "culprit/importers/ncu_figures.hpp"
#include "culprit/importers/peaks.hpp"
#include "culprit/importers/units.hpp"

using namespace culprit::importers;
using namespace culprit::importers::ncu;

namespace {

const std::string kCounters = CULPRIT_COUNTERS_DIR;
const std::string kNcu = kCounters + "/roofline-profiler/ncu/";

double metric(const Launch& l, const std::string& name) {
  const Metric* m = l.find(name);
  REQUIRE_MESSAGE(m != nullptr, name);
  return m->value;
}

std::string error_of(const std::string& bytes, const std::string& file = "x.csv") {
  try {
    parse_ncu_csv(bytes, file);
  } catch (const culprit::UsageError& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader15 =
    R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",)"
    R"("Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",)"
    R"("Metric Value")";

std::string row15(const std::string& id, const std::string& kernel, const std::string& metric,
                  const std::string& unit, const std::string& value) {
  const std::string q = "\",\"";  // "," between two quoted fields
  return "\"" + id + q + "1" + q + "app" + q + "host" + q + kernel + q + "1" + q + "7" + q +
         "(256, 1, 1)" + q + "(80, 1, 1)" + q + "0" + q + "9.0" + q + "Sec" + q + metric + q +
         unit + q + value + "\"";
}

}  // namespace

TEST_CASE("every roofline-profiler export: one launch, its 12 metrics, values as written") {
  struct Known {
    const char* file;
    const char* kernel;
    double duration_ns, read, write, hit_pct;
  };
  const std::vector<Known> known = {
      {"gemm_naive.csv",
       "unnamed>::gemm_naive_kernel(const float *, const float *, float *, int, int, int)", 9589248,
       54207744, 26601216, 100.39},
      {"gemm_tiled.csv",
       "void unnamed>::gemm_tiled_kernel<32>(const float *, const float *, float *, int, int, "
       "int)",
       10195552, 53261312, 3377920, 87.50},
      {"gemm_register_blocked.csv",
       "unnamed>::gemm_register_blocked_kernel(const float *, const float *, float *, int, int, "
       "int)",
       2970912, 42139648, 2289664, 95.08},
      {"gemm_vectorized.csv",
       "unnamed>::gemm_vectorized_kernel(const float *, const float *, float *, int, int, int)",
       2103104, 38170624, 8163840, 95.33},
      {"saxpy.csv", "unnamed>::saxpy_kernel(float, const float *, float *, int)", 292928, 134221568,
       43631104, 33.26},
      {"transpose_naive.csv", "unnamed>::transpose_naive_kernel(const float *, float *, int, int)",
       163072, 19001600, 4399616, 86.12},
      {"transpose_tiled.csv",
       "void unnamed>::transpose_tiled_kernel<32>(const float *, float *, int, int)", 85824,
       17056256, 13000960, 0.31},
  };
  for (const Known& k : known) {
    CAPTURE(k.file);
    const Report r = read_ncu(kNcu + k.file);
    CHECK(r.page == Page::kDetails);
    CHECK(r.columns == 15);
    CHECK(r.rows == 12);
    // BOM, two ==PROF== lines and six lines of the program's output before the header (line 9).
    CHECK(r.skipped_lines == 8);
    REQUIRE(r.launches.size() == 1);
    const Launch& l = r.launches[0];
    CHECK(l.id == 0);
    CHECK(l.kernel == k.kernel);  // commas, parentheses, "unnamed>::" kept whole
    CHECK(l.line == 10);
    CHECK(l.metrics.size() == 12);
    CHECK(metric(l, "gpu__time_duration.sum") == k.duration_ns);  // "9,589,248" ns
    CHECK(metric(l, "dram__bytes_op_read.sum") == k.read);
    CHECK(metric(l, "dram__bytes_op_write.sum") == k.write);
    CHECK(metric(l, "lts__t_sector_hit_rate.pct") == doctest::Approx(k.hit_pct));
    CHECK(l.find("lts__t_sector_hit_rate.pct")->unit == "%");
    CHECK(l.find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")->unit == "sector");
    const KernelFigures f = kernel_figures(l);
    REQUIRE(f.dram_bytes);
    CHECK(f.dram_bytes->value == k.read + k.write);
    CHECK_FALSE(f.flops);  // no SASS instruction counters in these exports: never invented
  }
}

TEST_CASE("real: gemm_naive keeps a percentage above 100 and the busiest-unit throughput") {
  const Launch l = read_ncu(kNcu + "gemm_naive.csv").launches.at(0);
  CHECK(metric(l, "lts__t_sector_hit_rate.pct") == doctest::Approx(100.39));
  CHECK(metric(l, "sm__throughput.avg.pct_of_peak_sustained_elapsed") == doctest::Approx(97.32));
  CHECK(metric(l, "sm__warps_active.avg.pct_of_peak_sustained_active") == doctest::Approx(66.61));
  CHECK(l.block_size == "(32, 32, 1)");
  CHECK(l.grid_size == "(64, 64, 1)");
  CHECK(l.cc == "12.0");
  CHECK(l.find("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")->value == 0.0);
  const KernelFigures f = kernel_figures(l);
  CHECK(f.achieved_occupancy_pct->value == doctest::Approx(66.61));
  CHECK(f.sm_throughput_pct->value == doctest::Approx(97.32));
}

TEST_CASE("real: cublaslt_ncu.log, the 20-column page with rules and short metric rows") {
  const Report r = read_ncu(kCounters + "/superbenchmark/cublaslt_ncu.log");
  CHECK(r.columns == 20);
  CHECK(r.rows == 58);          // 50 metric rows (15 fields, trailing comma) + 8 rule rows
  CHECK(r.skipped_lines == 3);  // two ==PROF== lines and the program's one line of output
  REQUIRE(r.launches.size() == 1);
  const Launch& l = r.launches[0];
  CHECK(l.kernel ==
        "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_"
        "align4_1sm_bias_f16_relu_aux_scalemax");
  CHECK(l.metrics.size() == 50);
  CHECK(l.rules.size() == 8);
  CHECK(l.rules[0].name == "SOLBottleneck");
  CHECK(l.rules.back().speedup == doctest::Approx(14.55));
  CHECK(l.rules.back().speedup_type == "global");
  const KernelFigures f = kernel_figures(l);
  CHECK(f.duration_ns->value == 406240);  // section label "Duration", ns
  CHECK(f.duration_ns->source == "Duration");
  CHECK(f.sm_frequency_hz->value == doctest::Approx(1239496049.13));  // "hz"
  CHECK(f.elapsed_cycles->value == 508757);
  CHECK(f.sm_active_cycles->value == doctest::Approx(462061.91));
  CHECK(f.achieved_occupancy_pct->value == doctest::Approx(15.53));
  CHECK(f.dram_throughput_pct->value == doctest::Approx(0.74));
  CHECK(f.sm_throughput_pct->value == doctest::Approx(23.59));
  CHECK(f.waves_per_sm->value == doctest::Approx(1.89));
  CHECK(f.sm_count->value == 152);
  const Metric* policy = l.find("Cluster Scheduling Policy");
  REQUIRE(policy != nullptr);
  CHECK(std::isnan(policy->value));  // text, not a number
  CHECK(policy->text == "PolicySpread");
  CHECK(l.find("Registers Per Thread")->unit == "register/thread");
}

TEST_CASE("real: peaks.csv, the measured row preferred") {
  const Peaks p = read_peaks(kCounters + "/roofline-profiler/peaks.csv");
  CHECK(p.flops_per_s == doctest::Approx(33739119771597.6));
  CHECK(p.bytes_per_s == doctest::Approx(590061393638.3));
  CHECK(p.source == "peaks.csv (measured)");
  // Hand-written: without a measured row, the theoretical one.
  const Peaks t = parse_peaks("label,peak_flops,peak_bandwidth\ntheoretical,1e12,2e11\n", "p.csv");
  CHECK(t.flops_per_s == 1e12);
  CHECK(t.source == "p.csv (theoretical)");
  // The timing file beside it has a "flops" column of counts (one kernel's FLOPs): no peaks.
  CHECK_THROWS_WITH_AS(
      read_peaks(kCounters + "/roofline-profiler/timing.csv"),
      (kCounters + "/roofline-profiler/timing.csv:1: a peaks file needs a peak_flops or "
                   "peak_bandwidth column (label,peak_flops,peak_bandwidth)")
          .c_str(),
      culprit::UsageError);
}

TEST_CASE("hand-written: the pre-2023 12-column details page with Kernel Time") {
  const std::string csv =
      "==PROF== Connected to process 1\n"
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context",)"
      R"("Stream","Section Name","Metric Name","Metric Unit","Metric Value")"
      "\n"
      R"csv("0","1","a","h","k(int, float)","2021-Aug-05 10:20:30","1","7","GPU Speed Of Light",)csv"
      R"("Duration","usecond","12.50")"
      "\n"
      R"csv("0","1","a","h","k(int, float)","2021-Aug-05 10:20:30","1","7","GPU Speed Of Light",)csv"
      R"("DRAM Throughput","%","81.20")"
      "\n"
      R"csv("0","1","a","h","k(int, float)","2021-Aug-05 10:20:30","1","7","GPU Speed Of Light",)csv"
      R"("SM Frequency","cycle/nsecond","1.41")"
      "\n";
  const Report r = parse_ncu_csv(csv, "old.csv");
  CHECK(r.columns == 12);
  REQUIRE(r.launches.size() == 1);
  const Launch& l = r.launches[0];
  CHECK(l.kernel_time == "2021-Aug-05 10:20:30");
  CHECK(l.block_size.empty());
  const KernelFigures f = kernel_figures(l);
  CHECK(f.duration_ns->value == doctest::Approx(12500.0));     // usecond -> ns
  CHECK(f.sm_frequency_hz->value == doctest::Approx(1.41e9));  // cycle/nsecond -> hz
  CHECK(f.dram_throughput_pct->value == doctest::Approx(81.2));
}

TEST_CASE("hand-written: the raw page, a units row, one kernel a row, several launches") {
  const std::string csv =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",)"
      R"("Block Size","Grid Size","Device","CC","dram__bytes_read.sum","gpu__time_duration.sum",)"
      R"("sm__cycles_elapsed.avg.per_second","sm__sass_thread_inst_executed_op_ffma_pred_on.sum")"
      "\n"
      R"("","","","","","","","","","","","Mbyte","msecond","Ghz","inst")"
      "\n"
      R"csv("0","9","t","h","gemm(a, b)","1","7","(128, 1, 1)","(10, 1, 1)","0","9.0","1.5","2","1.98","1,000")csv"
      "\n"
      "program output between rows\n"
      "==WARNING== a warning between rows\n"
      R"csv("1","9","t","h","gemm(a, b)","1","7","(128, 1, 1)","(10, 1, 1)","0","9.0","n/a","3","1.98","2,000")csv"
      "\n";
  const Report r = parse_ncu_csv(csv, "raw.csv");
  CHECK(r.page == Page::kRaw);
  REQUIRE(r.launches.size() == 2);  // one kernel name, two launch IDs
  CHECK(r.launches[0].id == 0);
  CHECK(r.launches[1].id == 1);
  CHECK(r.warnings.size() == 1);
  CHECK(r.skipped_lines == 2);
  const KernelFigures a = kernel_figures(r.launches[0]);
  CHECK(a.dram_read_bytes->value == doctest::Approx(1.5e6));  // Mbyte
  CHECK(a.duration_ns->value == doctest::Approx(2e6));        // msecond
  CHECK(a.flops->value == 2000.0);                            // an FMA is two FLOPs
  const KernelFigures b = kernel_figures(r.launches[1]);
  CHECK_FALSE(b.dram_read_bytes);  // n/a
  CHECK(b.duration_ns->value == doctest::Approx(3e6));
  CHECK(std::isnan(r.launches[1].find("dram__bytes_read.sum")->value));
}

TEST_CASE("hand-written: launches keyed by kernel name and ID, a short row") {
  const std::string csv = kHeader15 + "\n" + row15("0", "k", "Duration", "nsecond", "100") + "\n" +
                          row15("1", "k", "Duration", "nsecond", "300") + "\n" +
                          row15("0", "other", "Duration", "nsecond", "50") + "\n" +
                          R"csv("1","1","app","host","k","1","7")csv" + "\n";  // short: no metric
  const Report r = parse_ncu_csv(csv, "k.csv");
  REQUIRE(r.launches.size() == 3);
  CHECK(r.launches[0].metrics.size() == 1);
  CHECK(r.launches[1].find("Duration")->value == 300);
  CHECK(r.launches[2].kernel == "other");
}

TEST_CASE(
    "hand-written: the README's preface quirks one by one (BOM, ==PROF== with a Windows path)") {
  // shared/counters/README.md: a UTF-8 byte-order mark, ==PROF== lines and the program's output
  // (here a Windows path with spaces, as gemm_*.csv hold) before the header, a quoted number with
  // thousands separators.
  const std::string csv =
      "\xEF\xBB\xBF==PROF== Connected to process 7 (C:\\Program Files\\My App\\a.exe)\n"
      "wrote 7 rows to C:\\Users\\x y\\timing.csv\n" +
      kHeader15 + "\n" + row15("0", "k(int, int)", "Duration", "nsecond", "9,589,248") + "\n";
  const Report r = parse_ncu_csv(csv, "bom.csv");
  CHECK(r.skipped_lines == 2);
  REQUIRE(r.launches.size() == 1);
  CHECK(r.launches[0].kernel == "k(int, int)");
  CHECK(r.launches[0].line == 4);
  CHECK(r.launches[0].find("Duration")->value == 9589248.0);
}

TEST_CASE("refusals name the file and line and say what to do") {
  CHECK(error_of("hello\n==PROF== x\n") ==
        "x.csv:2: no ncu CSV header (a line starting \"ID\",\"Process ID\",...) in 2 lines: "
        "export with `ncu --csv` or `ncu --import F --csv`");
  CHECK(error_of(kHeader15 + "\n==PROF== Disconnected\n") ==
        "x.csv:2: no kernel row after the header at line 1: did ncu profile any kernel (see its "
        "==WARNING== lines)?");
  CHECK(error_of(kHeader15 + "\n" + row15("x", "k", "Duration", "ns", "1") + "\n")
            .rfind("x.csv:2: launch ID \"x\" is not a whole number", 0) == 0);
  // fuzz_import_ncu (issue 38): an ID past int64 was converted to it (undefined behaviour).
  const std::string huge(52, '8');
  CHECK(error_of(kHeader15 + "\n" + row15(huge, "k", "Duration", "ns", "1") + "\n") ==
        "x.csv:2: launch ID \"" + huge +
            "\" is not a whole number from 0 to 2^53: is this an ncu CSV?");
  CHECK(error_of(std::string("NCU\0REP", 7), "a.bin")
            .find("ncu --import a.bin --csv --page "
                  "details") != std::string::npos);
  CHECK(error_of(kHeader15 + "\n\"0\",\"unclosed\n").rfind("x.csv:2: a quoted field", 0) == 0);
  try {
    read_ncu("/nonexistent/profile.ncu-rep");
    FAIL("a .ncu-rep must be refused");
  } catch (const culprit::UsageError& e) {
    CHECK(std::string(e.what()) ==
          "/nonexistent/profile.ncu-rep: an Nsight Compute report (.ncu-rep) is binary; convert "
          "it to CSV first: ncu --import /nonexistent/profile.ncu-rep --csv --page details > "
          "/nonexistent/profile.ncu-rep.csv");
    CHECK(e.exit_code() == 2);
  }
}

TEST_CASE("the unit table: every spelling and prefix into one canonical unit") {
  struct Case {
    const char* unit;
    const char* canonical;
    double factor;
  };
  for (const Case& c : std::vector<Case>{{"ns", "ns", 1},
                                         {"nsecond", "ns", 1},
                                         {"usecond", "ns", 1e3},
                                         {"us", "ns", 1e3},
                                         {"msecond", "ns", 1e6},
                                         {"ms", "ns", 1e6},
                                         {"second", "ns", 1e9},
                                         {"s", "ns", 1e9},
                                         {"byte", "byte", 1},
                                         {"Kbyte", "byte", 1e3},
                                         {"Mbyte", "byte", 1e6},
                                         {"Gbyte", "byte", 1e9},
                                         {"MiB", "byte", 1048576},
                                         {"hz", "hz", 1},
                                         {"Mhz", "hz", 1e6},
                                         {"MHz", "hz", 1e6},
                                         {"Ghz", "hz", 1e9},
                                         {"cycle/second", "hz", 1},
                                         {"cycle/nsecond", "hz", 1e9},
                                         {"cycle/usecond", "hz", 1e6},
                                         {"byte/second", "byte/s", 1},
                                         {"Gbyte/second", "byte/s", 1e9},
                                         {"Tbyte/s", "byte/s", 1e12},
                                         {"cycle", "cycle", 1},
                                         {"%", "%", 1},
                                         {"W", "W", 1},
                                         {"mW", "W", 1e-3},
                                         {"", "", 1}}) {
    CAPTURE(c.unit);
    const CanonicalUnit u = canonical_unit(c.unit);
    CHECK(u.known);
    CHECK(u.unit == c.canonical);
    CHECK(u.factor == doctest::Approx(c.factor));
  }
  CHECK_FALSE(canonical_unit("sector").known);
  CHECK(canonical_unit("register/thread").unit == "register/thread");
}

TEST_CASE("numbers as counter files write them") {
  CHECK(parse_number("9,589,248") == 9589248.0);
  CHECK(parse_number("1,234.5") == 1234.5);
  CHECK(parse_number(" 100.39 ") == doctest::Approx(100.39));
  CHECK(parse_number("-2.5e3") == -2500.0);
  CHECK_FALSE(parse_number("n/a"));
  CHECK_FALSE(parse_number("N/A"));
  CHECK_FALSE(parse_number("[N/A]"));
  CHECK_FALSE(parse_number("nan"));
  CHECK_FALSE(parse_number("12,34"));  // not thousands grouping
  CHECK_FALSE(parse_number(""));
  CHECK_FALSE(parse_number("PolicySpread"));
}
