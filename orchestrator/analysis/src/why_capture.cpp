#include "culprit/analysis/why_capture.hpp"

#include <fmt/format.h>

#include <string_view>

#include "culprit/common/kernels.hpp"
#include "culprit/common/text.hpp"

namespace culprit::analysis {
namespace {

constexpr const char* kMetrics =
    "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,"
    "gpc__cycles_elapsed.max,gpc__cycles_elapsed.avg.per_second,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,"
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,"
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum,"
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum,"
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum,"
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
    "launch__waves_per_multiprocessor";

// What ncu matches: its default --kernel-name-base (function) is the function's own name, without
// namespace, template arguments and parameters, so a demangled signature (a name that ends in
// its parameter list) is cut to that identifier (kernel_base_name owns the cut); a phase named
// otherwise (a region, a short kernel name) is matched as it is.
std::string_view filter_name(const CaptureTarget& t) {
  if (!t.kernel.empty()) return kernel_base_name(t.kernel);
  if (t.phase.ends_with(')')) return kernel_base_name(t.phase);
  return t.phase;
}

// `regex:'...'`: regex metacharacters escaped (a literal match), then quoted for the shell.
std::string regex_argument(std::string_view name) {
  constexpr std::string_view kMeta = "\\^$.|?*+()[]{}";
  std::string escaped;
  for (const char c : name) {
    if (kMeta.find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return "regex:" + shell_quote(escaped);
}

// Whether ncu's NVTX filter can name the range as it is: '@' (domain), '/' (nesting), '[' and
// ']' (stack ends) and '*' (any range) are its syntax, and "regex:" starts a pattern.
bool nvtx_filterable(std::string_view range) {
  return !range.empty() && range.find_first_of("@/[]*") == std::string_view::npos &&
         !range.starts_with("regex:");
}

// The CSV's name: the rank and the filtered name, every character outside [A-Za-z0-9._-] an
// underscore, so the redirection needs no quoting.
std::string file_name(int rank, std::string_view name) {
  std::string out = fmt::format("rank{}-", rank);
  for (const char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    out += plain ? c : '_';
  }
  return out + ".csv";
}

// Every kernel the blamed instance launched inside its NVTX push/pop range ("<range>/"): the
// range is the instance, so nothing is counted, and no kernel name is assumed (counters attached
// from another capture may name a kernel this workload never launches).
std::string nvtx_command(const CaptureTarget& t) {
  return fmt::format(
      "ncu --clock-control none --nvtx --nvtx-include {} --metrics {} --csv --page details "
      "<rank {}'s command> > {}",
      shell_quote(t.nvtx_range + "/"), kMetrics, t.rank, file_name(t.rank, t.nvtx_range));
}

// The kernel (or the phase) by name, its instances before the blamed one skipped.
std::string launch_command(const CaptureTarget& t) {
  const std::string_view name = filter_name(t);
  return fmt::format(
      "ncu --clock-control none --kernel-name {} --launch-skip {} --launch-count {} --metrics {} "
      "--csv --page details <rank {}'s command> > {}",
      regex_argument(name), t.launch_skip, t.launch_count, kMetrics, t.rank,
      file_name(t.rank, name));
}

}  // namespace

NextCapture next_capture(const CaptureTarget& t) {
  NextCapture n;
  n.ncu = nvtx_filterable(t.nvtx_range) ? nvtx_command(t) : launch_command(t);
  n.telemetry = fmt::format(
      "nsys profile --gpu-metrics-devices=all --gpu-metrics-frequency=10000 -o rank{} <rank {}'s "
      "command>",
      t.rank, t.rank);
  return n;
}

}  // namespace culprit::analysis
