// The why verdict (analysis/why) on the real exports of shared/counters with their known
// answers, and hand-written counters (labelled) for the rules the real files cannot reach.
// Expected figures computed independently from the values in the files (python3):
//   FLOPs 17,179,869,184 (timing.csv, gemm 2048); measured peaks 33,739,119,771,597.6 FLOP/s,
//   590,061,393,638.3 byte/s (peaks.csv); vectorized 2,103,104 ns, 46,334,464 bytes;
//   naive 9,589,248 ns, 80,808,960 bytes; saxpy 292,928 ns, 177,852,672 bytes; the CUTLASS fp8
//   GEMM of cublaslt_ncu.log 2 x 2208 x 2048 x 5608 = 50,718,572,544 FLOPs in 406,240 ns against
//   B200's 4.5e15 FLOP/s: 2.7744 %.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "culprit/analysis/why.hpp"
#include "culprit/analysis/why_capture.hpp"
#include "culprit/analysis/why_telemetry.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/peaks.hpp"
#include "culprit/report/why_report.hpp"
#include "runfile/phase_range.hpp"

using namespace culprit::analysis;
using culprit::importers::ncu::Figure;
using culprit::importers::ncu::KernelFigures;

namespace {

const std::string kDir = CULPRIT_COUNTERS_DIR "/roofline-profiler/";

WhyOptions roofline_options() {
  WhyOptions o;
  o.peaks = peaks_from(culprit::importers::read_peaks(kDir + "peaks.csv"));
  o.flops = 17179869184.0;
  o.ideal_bytes = 50331648.0;
  return o;
}

const WhyExplanation& find(const WhyVerdict& v, const std::string& name) {
  for (const WhyExplanation& e : v.explanations) {
    if (e.name == name) return e;
  }
  FAIL("no explanation " << name);
  return v.explanations.front();
}

const WhyFigure& figure(const WhySide& s, const std::string& metric) {
  for (const WhyFigure& f : s.figures) {
    if (f.metric == metric) return f;
  }
  FAIL("no figure " << metric);
  return s.figures.front();
}

// Hand-written counters of one launch.
KernelCounters kernel(const std::string& name, double ns, double bytes, double sm_pct,
                      double mem_pct, double waves) {
  KernelFigures f;
  f.duration_ns = Figure{ns, "gpu__time_duration.sum"};
  f.dram_bytes = Figure{bytes, "dram__bytes.sum"};
  f.sm_throughput_pct = Figure{sm_pct, "sm__throughput.avg.pct_of_peak_sustained_elapsed"};
  f.memory_throughput_pct = Figure{mem_pct, "Memory Throughput"};
  f.waves_per_sm = Figure{waves, "Waves Per SM"};
  return KernelCounters{"hand.csv", name, {0}, {f}};
}

}  // namespace

TEST_CASE(
    "real: gemm_vectorized (baseline) against gemm_naive: traffic refuted, compute supported") {
  const WhyOptions o = roofline_options();
  const WhyVerdict v =
      why_of_exports(kDir + "ncu/gemm_vectorized.csv", kDir + "ncu/gemm_naive.csv", o);
  CHECK(v.kernel.find("gemm_naive_kernel") != std::string::npos);
  REQUIRE(v.baseline);
  CHECK(figure(*v.baseline, "flop_rate").value.value() == doctest::Approx(8.168815799884e12));
  CHECK(figure(*v.baseline, "flop_rate_pct_of_peak").value.value() == doctest::Approx(24.2117));
  CHECK(figure(v.candidate, "flop_rate_pct_of_peak").value.value() == doctest::Approx(5.3101));
  CHECK(figure(v.candidate, "flop_rate").numerator.value() == 17179869184.0);
  CHECK(figure(v.candidate, "flop_rate").denominator.value() == doctest::Approx(9.589248e-3));
  CHECK(figure(v.candidate, "dram_bytes").value.value() == 80808960.0);
  CHECK(figure(v.candidate, "dram_bytes_over_ideal").value.value() == doctest::Approx(1.60553));
  CHECK(figure(v.candidate, "dram_bandwidth_pct_of_peak").value.value() ==
        doctest::Approx(1.42816));
  CHECK(figure(v.candidate, "ridge_point").value.value() == doctest::Approx(57.179));
  CHECK(figure(v.candidate, "arithmetic_intensity").value.value() == doctest::Approx(212.5986));
  // The byte count is a sum of two counters: the quotient groups it.
  CHECK(figure(v.candidate, "arithmetic_intensity").source ==
        o.flops_source + " / (dram__bytes_op_read.sum + dram__bytes_op_write.sum)");
  CHECK(find(v, "hbm_traffic").status == WhyStatus::kRefuted);
  CHECK(find(v, "hbm_traffic").reason ==
        "DRAM bytes x1.74 while the duration grew x4.56: bytes did not grow in proportion");
  CHECK(find(v, "compute_underuse").status == WhyStatus::kSupported);
  CHECK(find(v, "compute_underuse").reason.find("FLOP/s x0.22") != std::string::npos);
  CHECK(find(v, "clock_throttling").status == WhyStatus::kUndecided);  // no clock in the files
  // sm__throughput 97.32 %: a busy sub-unit (not efficient compute), so not launch-bound.
  CHECK(find(v, "launch_bound").status == WhyStatus::kRefuted);
  CHECK(find(v, "different_kernel").status == WhyStatus::kSupported);
  CHECK(v.reconciliation.change_ms.value() == doctest::Approx(7.486144));
  const std::string json = culprit::report::why_json(v);
  CHECK(json.rfind("{\"kernel\":", 0) == 0);
  CHECK(json.find("\"name\":\"hbm_traffic\",\"status\":\"refuted\"") != std::string::npos);
  CHECK(json.find("\"name\":\"compute_underuse\",\"status\":\"supported\"") != std::string::npos);
}

TEST_CASE("real: without the shape's FLOPs compute_underuse is undecided, never invented") {
  WhyOptions o = roofline_options();
  o.flops.reset();
  const WhyVerdict v =
      why_of_exports(kDir + "ncu/gemm_vectorized.csv", kDir + "ncu/gemm_naive.csv", o);
  CHECK(find(v, "compute_underuse").status == WhyStatus::kUndecided);
  CHECK(find(v, "hbm_traffic").status == WhyStatus::kRefuted);
  CHECK(figure(v.candidate, "flop_rate").note == "n/a: no FLOP count");
  CHECK_FALSE(figure(v.candidate, "flop_rate").value);
  // The figure still says what it is made of: the missing count by name, not an empty operand.
  CHECK(figure(v.candidate, "flop_rate").source == "FLOPs / duration");
  CHECK(figure(v.candidate, "arithmetic_intensity").source ==
        "FLOPs / (dram__bytes_op_read.sum + dram__bytes_op_write.sum)");
}

TEST_CASE("real: saxpy alone sits at the memory roof") {
  WhyOptions o = roofline_options();
  o.flops.reset();
  o.ideal_bytes.reset();
  const WhyVerdict v = why_of_exports("", kDir + "ncu/saxpy.csv", o);
  CHECK_FALSE(v.baseline);
  CHECK(v.candidate.roof == "memory roof");
  CHECK(figure(v.candidate, "dram_bandwidth").value.value() == doctest::Approx(607.1549e9));
  CHECK(figure(v.candidate, "dram_bandwidth_pct_of_peak").value.value() ==
        doctest::Approx(102.897));
  CHECK(find(v, "launch_bound").status == WhyStatus::kRefuted);
  CHECK(find(v, "hbm_traffic").status == WhyStatus::kUndecided);
}

TEST_CASE("real: the CUTLASS fp8 GEMM alone: the roof names the counts it lacks") {
  // superbenchmark's cublaslt_ncu.log: Speed Of Light percentages, no DRAM byte or SASS counts.
  // Its shape (m 2208, n 2048, k 5608: the benchmark's own line, the log's second) gives 2 m n k
  // FLOPs.
  const std::string log = CULPRIT_COUNTERS_DIR "/superbenchmark/cublaslt_ncu.log";
  WhyOptions o;
  o.peaks = device_peaks("B200", "fp8");
  WhyVerdict v = why_of_exports("", log, o);
  CHECK(v.candidate.roof ==
        "n/a: no DRAM byte count (collect dram__bytes_*) and no FLOP count (pass --flops, or "
        "collect sm__sass_thread_inst_executed_op_*)");
  CHECK(figure(v.candidate, "dram_bytes").note ==
        "n/a: no DRAM byte count (collect dram__bytes_read.sum and dram__bytes_write.sum)");
  CHECK_FALSE(figure(v.candidate, "dram_bandwidth_pct_of_peak").value);
  CHECK(figure(v.candidate, "dram_bytes").source == "DRAM bytes");
  o.flops = 2.0 * 2208 * 2048 * 5608;
  v = why_of_exports("", log, o);
  CHECK(v.candidate.roof == "below the roofs");
  CHECK(figure(v.candidate, "flop_rate_pct_of_peak").value.value() == doctest::Approx(2.7744));
  o.peaks = WhyPeaks{};
  v = why_of_exports("", log, o);
  CHECK(v.candidate.roof == "n/a: no peaks (pass --peaks or --device)");
  // Each figure against a peak says which peak it lacks, and its source no peaks' origin.
  CHECK(figure(v.candidate, "flop_rate_pct_of_peak").source == "achieved FLOP/s / peak FLOP/s");
  CHECK(figure(v.candidate, "flop_rate_pct_of_peak").note ==
        "n/a: no FLOP peak (pass --peaks or --device)");
  CHECK(figure(v.candidate, "ridge_point").note == "n/a: no FLOP peak (pass --peaks or --device)");
  // The kernel's own missing count comes first: no DRAM bytes, whatever the peaks.
  CHECK(figure(v.candidate, "dram_bandwidth_pct_of_peak").note ==
        figure(v.candidate, "dram_bytes").note);
  o.peaks = WhyPeaks{1e15, 0.0, "hand-written"};
  v = why_of_exports("", log, o);
  CHECK(figure(v.candidate, "flop_rate_pct_of_peak").source ==
        "achieved FLOP/s / peak FLOP/s, hand-written");
  CHECK(figure(v.candidate, "flop_rate_pct_of_peak").note.empty());
  CHECK(figure(v.candidate, "ridge_point").note ==
        "n/a: no bandwidth peak (pass --peaks or --device)");
}

TEST_CASE("real: every figure that is n/a says why, and every source reads as a formula") {
  // Each real export alone, with and without the peaks and the shape: the CUTLASS log lacks
  // DRAM bytes, cycles and the clock; the roofline CSVs lack FLOPs, cycles and the clock.
  std::vector<std::string> files = {CULPRIT_COUNTERS_DIR "/superbenchmark/cublaslt_ncu.log"};
  for (const char* f :
       {"gemm_naive.csv", "gemm_tiled.csv", "gemm_vectorized.csv", "gemm_register_blocked.csv",
        "saxpy.csv", "transpose_naive.csv", "transpose_tiled.csv"}) {
    files.push_back(kDir + "ncu/" + f);
  }
  int unknown = 0;
  for (const std::string& file : files) {
    for (const bool bare : {false, true}) {
      const WhyVerdict v = why_of_exports("", file, bare ? WhyOptions() : roofline_options());
      for (const WhyFigure& f : v.candidate.figures) {
        CAPTURE(file);
        CAPTURE(bare);
        CAPTURE(f.metric);
        CAPTURE(f.source);
        if (!f.value) {
          ++unknown;
          CHECK(f.note.starts_with("n/a: "));
        }
        CHECK_FALSE(f.source.empty());
        CHECK(f.source.front() != ' ');
        CHECK_FALSE(f.source.ends_with(", "));
      }
    }
  }
  CHECK(unknown > 40);  // the property was tested on many n/a figures, not vacuously
}

TEST_CASE("real: a file against itself supports nothing") {
  for (const char* file :
       {"gemm_vectorized.csv", "gemm_naive.csv", "saxpy.csv", "transpose_naive.csv"}) {
    CAPTURE(file);
    const WhyVerdict v =
        why_of_exports(kDir + "ncu/" + file, kDir + "ncu/" + file, roofline_options());
    for (const WhyExplanation& e : v.explanations) {
      CAPTURE(e.name);
      CHECK(e.status != WhyStatus::kSupported);
    }
    CHECK(v.reconciliation.change_ms.value() == 0.0);
  }
}

TEST_CASE("hand-written: bytes doubled with time at 85 % of peak bandwidth: hbm_traffic") {
  WhyOptions o;
  o.peaks = WhyPeaks{100e12, 1e12, "hand"};
  const std::vector<KernelCounters> b = {kernel("k", 1e6, 0.425e9, 30, 45, 4)};
  const std::vector<KernelCounters> c = {kernel("k", 2e6, 1.7e9, 30, 85, 4)};
  const WhyVerdict v = why_verdict(&b, c, o);
  CHECK(find(v, "hbm_traffic").status == WhyStatus::kSupported);
  CHECK(find(v, "compute_underuse").status == WhyStatus::kRefuted);
  CHECK(find(v, "different_kernel").status == WhyStatus::kRefuted);
  CHECK(v.candidate.roof == "memory roof");
}

TEST_CASE("hand-written: a small grid with idle units is launch-bound") {
  WhyOptions o;
  o.peaks = WhyPeaks{100e12, 1e12, "hand"};
  const std::vector<KernelCounters> c = {kernel("tiny", 5e3, 1e6, 12, 8, 0.25)};
  const WhyVerdict v = why_verdict(nullptr, c, o);
  CHECK(find(v, "launch_bound").status == WhyStatus::kSupported);
  const std::vector<KernelCounters> full = {kernel("tiny", 5e3, 1e6, 12, 8, 1.5)};
  CHECK(find(why_verdict(nullptr, full, o), "launch_bound").status == WhyStatus::kRefuted);
}

TEST_CASE("hand-written telemetry: a rank 30 % below its peers is throttled; equal clocks refute") {
  WhyOptions o;
  const std::vector<KernelCounters> b = {kernel("k", 1e6, 1e6, 30, 30, 4)};
  const std::vector<KernelCounters> c = {kernel("k", 1.4e6, 1e6, 30, 30, 4)};
  o.telemetry = ClockEvidence{3, 1.386e9, 1.98e9};
  const WhyExplanation slow = find(why_verdict(&b, c, o), "clock_throttling");
  CHECK(slow.status == WhyStatus::kSupported);
  CHECK(slow.reason ==
        "rank 3's SM clock 1386 MHz is 70.0 % of its peers' 1980 MHz in the slow "
        "steps");
  o.telemetry = ClockEvidence{3, 1.98e9, 1.98e9};
  CHECK(find(why_verdict(&b, c, o), "clock_throttling").status == WhyStatus::kRefuted);
}

TEST_CASE("real: a --kernel pattern that matches nothing names the file and its kernels") {
  WhyOptions o = roofline_options();
  o.kernel = "gemm_tiled";
  const std::string naive = kDir + "ncu/gemm_naive.csv";
  CHECK_THROWS_WITH_AS(
      why_of_exports(naive, kDir + "ncu/gemm_tiled.csv", o),
      ("no kernel of the baseline export " + naive +
       " matches --kernel 'gemm_tiled' (a regex searched for in each kernel name): its kernels "
       "are 'unnamed>::gemm_naive_kernel(const float *, const float *, float *, int, int, "
       "int)'; pass a part of one of those names")
          .c_str(),
      culprit::UsageError);
  o.kernel = "gemm_naive";
  CHECK(why_of_exports("", naive, o).kernel.find("gemm_naive_kernel") != std::string::npos);
}

TEST_CASE("the device table and its refusals") {
  const WhyPeaks h100 = device_peaks("H100", "bf16");
  CHECK(h100.flops_per_s == doctest::Approx(989.4e12));
  CHECK(h100.bytes_per_s == doctest::Approx(3.35e12));
  CHECK(device_peaks("H200", "fp32").bytes_per_s == doctest::Approx(4.8e12));
  CHECK(device_peaks("A100", "tf32").flops_per_s == doctest::Approx(156e12));
  CHECK(device_peaks("B200", "fp8").flops_per_s == doctest::Approx(4500e12));
  CHECK_THROWS_AS(device_peaks("V100", "fp32"), culprit::UsageError);
  CHECK_THROWS_AS(device_peaks("A100", "fp8"), culprit::UsageError);
  CHECK_THROWS_AS(device_peaks("A100", "int4"), culprit::UsageError);
}

TEST_CASE("hand-written dcgmi dmon telemetry: GPU 3 (rank 11) 30 % below its peers is throttled") {
  // Four GPUs of one node, ranks 8..11; two sample rows each, GPU 3 at 1386 MHz (70 % of 1980).
  auto dmon = [](const char* gpu3) {
    std::string t = "#Entity   SMCLK  POWER\nID        MHZ    W\n";
    for (int row = 0; row < 2; ++row) {
      for (int gpu = 0; gpu < 4; ++gpu) {
        t += "GPU " + std::to_string(gpu) + "     " + (gpu == 3 ? gpu3 : "1980") + "   400\n";
      }
    }
    return t;
  };
  using namespace culprit::importers::telemetry;
  const auto map = parse_gpu_rank("0=8,1=9,2=10,3=11");
  const std::vector<KernelCounters> b = {kernel("k", 1e6, 1e6, 30, 30, 4)};
  const std::vector<KernelCounters> c = {kernel("k", 1.4e6, 1e6, 30, 30, 4)};
  WhyOptions o;
  o.telemetry = clock_evidence(parse_telemetry(dmon("1386"), "dmon.txt", Format::kDcgm), 11, map);
  REQUIRE(o.telemetry);
  CHECK(o.telemetry->rank_clock_hz == 1386e6);
  CHECK(o.telemetry->peers_clock_hz == 1980e6);
  const WhyExplanation slow = find(why_verdict(&b, c, o), "clock_throttling");
  CHECK(slow.status == WhyStatus::kSupported);
  CHECK(slow.reason.rfind("rank 11's SM clock 1386 MHz is 70.0 %", 0) == 0);
  o.telemetry = clock_evidence(parse_telemetry(dmon("1980"), "dmon.txt", Format::kDcgm), 11, map);
  CHECK(find(why_verdict(&b, c, o), "clock_throttling").status == WhyStatus::kRefuted);
  CHECK_FALSE(clock_evidence(parse_telemetry(dmon("1980"), "d", Format::kDcgm), 5, map));
  CHECK_THROWS_AS(parse_gpu_rank("0:8"), culprit::UsageError);
}

namespace {

// The argument of --kernel-name in a capture command, as the shell hands it to ncu (the names
// below hold no quote, so the shell only removes the surrounding pair).
std::string kernel_argument(const std::string& command) {
  const std::string flag = "--kernel-name regex:'";
  const std::size_t at = command.find(flag);
  REQUIRE(at != std::string::npos);
  const std::size_t begin = at + flag.size();
  return command.substr(begin, command.find('\'', begin) - begin);
}

bool ncu_matches(const std::string& command, const std::string& function_name) {
  return std::regex_search(function_name, std::regex(kernel_argument(command)));
}

// The reference scenario's blamed phase: rank 63's gemm.bwd.wgrad, 127 instances before it.
CaptureTarget reference_capture() {
  CaptureTarget t;
  t.phase = "gemm.bwd.wgrad";
  t.rank = 63;
  t.launch_skip = "127";
  t.launch_count = "1";
  return t;
}

}  // namespace

TEST_CASE("next capture: the kernel filter is a literal match on ncu's function name") {
  CaptureTarget t = reference_capture();
  NextCapture n = next_capture(t);
  CHECK(n.ncu.starts_with(
      "ncu --clock-control none --kernel-name regex:'gemm\\.bwd\\.wgrad' --launch-skip 127 "
      "--launch-count 1 --metrics gpu__time_duration.sum,"));
  CHECK(n.ncu.ends_with(" --csv --page details <rank 63's command> > rank63-gemm.bwd.wgrad.csv"));
  CHECK(n.telemetry ==
        "nsys profile --gpu-metrics-devices=all --gpu-metrics-frequency=10000 -o rank63 <rank "
        "63's command>");
  CHECK(ncu_matches(n.ncu, "gemm.bwd.wgrad"));
  CHECK_FALSE(ncu_matches(n.ncu, "gemmXbwdXwgrad"));  // the dots are literal

  // A kernel of shared/traces/gpu-kineto as the attached counters name it: ncu's default
  // --kernel-name-base is the function's own name, which the filter and the file take.
  t.kernel =
      "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
      "unsigned long, unsigned int**, unsigned long, unsigned long)";
  t.phase = "symm_mem::multimem_all_reduce_";
  t.rank = 0;
  n = next_capture(t);
  CHECK(kernel_argument(n.ncu) == "multimem_all_reduce_kernel");
  CHECK(n.ncu.ends_with("> rank0-multimem_all_reduce_kernel.csv"));
  CHECK(ncu_matches(n.ncu, "multimem_all_reduce_kernel"));

  // Without counters a kernel-named phase is cut the same way; a region is matched as it is,
  // its metacharacters escaped, and the file name keeps only [A-Za-z0-9._-].
  t.kernel.clear();
  t.phase =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)";
  CHECK(kernel_argument(next_capture(t).ncu) == "vectorized_elementwise_kernel");
  t.phase = "## Call CompiledFxGraph (fud64) x2+ ##";
  n = next_capture(t);
  CHECK(kernel_argument(n.ncu) == "## Call CompiledFxGraph \\(fud64\\) x2\\+ ##");
  CHECK(ncu_matches(n.ncu, t.phase));
  CHECK(n.ncu.ends_with("> rank0-___Call_CompiledFxGraph__fud64__x2____.csv"));
  t.phase = "it's";
  CHECK(next_capture(t).ncu.find("--kernel-name regex:'it'\\''s' ") != std::string::npos);
}

TEST_CASE("next capture: a phase instance's NVTX range replaces the launch counting") {
  CaptureTarget t = reference_capture();
  t.nvtx_range = runfile::phase_range_name(t.phase, 3, 3, 0, -1);
  REQUIRE(t.nvtx_range == "gemm.bwd.wgrad step 3 microbatch 3 layer 0");
  NextCapture n = next_capture(t);
  CHECK(n.ncu.starts_with(
      "ncu --clock-control none --nvtx --nvtx-include 'gemm.bwd.wgrad step 3 microbatch 3 layer "
      "0/' --metrics gpu__time_duration.sum,"));
  CHECK(
      n.ncu.ends_with(" --csv --page details <rank 63's command> > "
                      "rank63-gemm.bwd.wgrad_step_3_microbatch_3_layer_0.csv"));
  CHECK(n.ncu.find("--launch-skip") == std::string::npos);
  CHECK(n.ncu.find("--kernel-name") == std::string::npos);
  // Attached counters name a kernel: the range still selects the instance, and every kernel in
  // it is profiled (the counters may come from another capture).
  t.kernel = "gemm_naive_kernel(const float *, const float *, float *, int, int, int)";
  CHECK(next_capture(t).ncu == n.ncu);
  // A quote in the range is quoted for the shell; a name with ncu's filter syntax ('/', '@',
  // '[', ']', '*', "regex:") cannot be named, and the launch-counting command stands.
  t.kernel.clear();
  t.nvtx_range = "it's step 0";
  CHECK(next_capture(t).ncu.find("--nvtx-include 'it'\\''s step 0/' ") != std::string::npos);
  for (const char* range :
       {"a/b step 0", "d@r step 0", "[x step 0", "y] step 0", "* step 0", "regex:x step 0", ""}) {
    t.nvtx_range = range;
    n = next_capture(t);
    CHECK_MESSAGE(n.ncu.find("--kernel-name regex:'gemm\\.bwd\\.wgrad' --launch-skip 127") !=
                      std::string::npos,
                  range);
    CHECK(n.ncu.find("--nvtx") == std::string::npos);
  }
}

TEST_CASE("the NVTX range of a phase instance names the identifiers its event has") {
  CHECK(runfile::phase_range_name("gemm.fwd", 0, 1, 2, -1) ==
        "gemm.fwd step 0 microbatch 1 layer 2");
  CHECK(runfile::phase_range_name("allreduce", 12, -1, -1, 1) == "allreduce step 12 seq 1");
  CHECK(runfile::phase_range_name("optimizer", 5, -1, -1, -1) == "optimizer step 5");
}

TEST_CASE("real NVML samples of one GPU: clock_throttling has no peer, and the reason says so") {
  using namespace culprit::importers::telemetry;
  const Series one_gpu = read_telemetry(kDir + "nvml.csv", Format::kNvmlCsv);
  CHECK_FALSE(clock_evidence(one_gpu, 0, {}));
  CHECK(no_clock_evidence_reason(one_gpu, 0, {})
            .starts_with("SM clock samples of rank 0 (GPU 0) only: clock_throttling compares the "
                         "rank's clock with "
                         "its peers'"));
  CHECK(no_clock_evidence_reason(one_gpu, 3, {}) ==
        "no SM clock sample of rank 3; the file's are of rank 0 (GPU 0) (map GPUs to ranks with "
        "--gpu-rank GPU=RANK,...)");
  CHECK(no_clock_evidence_reason(one_gpu, 3, parse_gpu_rank("0=3"))
            .starts_with("SM clock samples of rank 3 (GPU 0) only"));
  const Series no_clock =
      parse_telemetry("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 98\n", "u.prom", Format::kDcgm);
  CHECK(no_clock_evidence_reason(no_clock, 0, {}) == "no SM clock sample in the file");
}

TEST_CASE("--kernel that is no regex is a usage error naming it, not an internal one") {
  WhyOptions o = roofline_options();
  o.kernel = "([";
  std::string message;
  try {
    why_of_exports(kDir + "ncu/gemm_tiled.csv", kDir + "ncu/gemm_naive.csv", o);
  } catch (const culprit::UsageError& e) {
    message = e.what();
  }
  CHECK(message.starts_with("--kernel '([' is not a valid regex: "));
}
