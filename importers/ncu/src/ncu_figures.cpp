#include "culprit/importers/ncu_figures.hpp"

#include <cmath>
#include <initializer_list>

namespace culprit::importers::ncu {
namespace {

// The first of `names` the launch holds with a numeric value.
MaybeFigure first_of(const Launch& l, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const Metric* m = l.find(name);
    if (m != nullptr && !std::isnan(m->value)) return Figure{m->value, m->name};
  }
  return std::nullopt;
}

// FLOPs from the SASS instruction counters: an add or a multiply is one, a fused multiply-add
// two (Nsight Compute's roofline uses the same weights).
MaybeFigure sass_flops(const Launch& l) {
  double total = 0.0;
  std::string source;
  bool any = false;
  for (const char* precision : {"f", "d", "h"}) {
    for (const auto& [op, weight] : {std::pair{"add", 1.0}, {"mul", 1.0}, {"fma", 2.0}}) {
      const std::string name =
          std::string("sm__sass_thread_inst_executed_op_") + precision + op + "_pred_on.sum";
      const Metric* m = l.find(name);
      if (m == nullptr || std::isnan(m->value)) continue;
      total += weight * m->value;
      source += (any ? " + " : "") + std::string(weight == 2.0 ? "2 x " : "") + name;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return Figure{total, source};
}

MaybeFigure dram_total(const KernelFigures& f, const Launch& l) {
  if (auto total = first_of(l, {"dram__bytes.sum"})) return total;
  if (!f.dram_read_bytes || !f.dram_write_bytes) return std::nullopt;
  return Figure{f.dram_read_bytes->value + f.dram_write_bytes->value,
                f.dram_read_bytes->source + " + " + f.dram_write_bytes->source};
}

}  // namespace

KernelFigures kernel_figures(const Launch& l) {
  KernelFigures f;
  f.duration_ns = first_of(l, {"gpu__time_duration.sum", "Duration", "gpu__time_duration.avg"});
  f.dram_read_bytes = first_of(l, {"dram__bytes_read.sum", "dram__bytes_op_read.sum"});
  f.dram_write_bytes = first_of(l, {"dram__bytes_write.sum", "dram__bytes_op_write.sum"});
  f.dram_bytes = dram_total(f, l);
  f.dram_throughput_pct =
      first_of(l, {"DRAM Throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                   "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"});
  f.memory_throughput_pct = first_of(
      l, {"Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  f.sm_throughput_pct =
      first_of(l, {"Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  f.sm_frequency_hz = first_of(l, {"SM Frequency", "gpc__cycles_elapsed.avg.per_second",
                                   "smsp__cycles_elapsed.avg.per_second"});
  f.elapsed_cycles = first_of(l, {"Elapsed Cycles", "gpc__cycles_elapsed.max"});
  f.sm_active_cycles = first_of(l, {"SM Active Cycles", "sm__cycles_active.avg"});
  f.achieved_occupancy_pct =
      first_of(l, {"Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"});
  f.tensor_pipe_pct =
      first_of(l, {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
                   "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                   "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active"});
  f.flops = sass_flops(l);
  f.waves_per_sm = first_of(l, {"Waves Per SM", "launch__waves_per_multiprocessor"});
  f.sm_count = first_of(l, {"# SMs", "launch__sm_count"});
  return f;
}

}  // namespace culprit::importers::ncu
