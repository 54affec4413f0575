#pragma once
// The quantities the verdict reads from one ncu launch, each from a raw metric name or the
// section label ncu prints for it (the details page's "Duration", "DRAM Throughput",
// "SM Frequency"), with the name it came from (evidence names its source). Absent: nullopt,
// never invented.

#include <optional>
#include <string>

#include "culprit/importers/ncu.hpp"

namespace culprit::importers::ncu {

struct Figure {
  double value = 0.0;  // canonical unit (units.hpp)
  std::string source;  // the metric name(s) it came from
};
using MaybeFigure = std::optional<Figure>;

struct KernelFigures {
  MaybeFigure duration_ns;             // gpu__time_duration.sum | Duration
  MaybeFigure dram_read_bytes;         // dram__bytes_read.sum | dram__bytes_op_read.sum
  MaybeFigure dram_write_bytes;        // dram__bytes_write.sum | dram__bytes_op_write.sum
  MaybeFigure dram_bytes;              // dram__bytes.sum, else read + write
  MaybeFigure dram_throughput_pct;     // DRAM Throughput | dram__throughput...pct_of_peak
  MaybeFigure memory_throughput_pct;   // Memory Throughput | gpu__compute_memory_throughput...
  MaybeFigure sm_throughput_pct;       // Compute (SM) Throughput | sm__throughput... (busiest unit)
  MaybeFigure sm_frequency_hz;         // SM Frequency | gpc__cycles_elapsed.avg.per_second
  MaybeFigure elapsed_cycles;          // Elapsed Cycles | gpc__cycles_elapsed.max
  MaybeFigure sm_active_cycles;        // SM Active Cycles | sm__cycles_active.avg
  MaybeFigure achieved_occupancy_pct;  // Achieved Occupancy | sm__warps_active...pct_of_peak
  MaybeFigure tensor_pipe_pct;         // sm__pipe_tensor*...pct_of_peak_sustained_active
  MaybeFigure flops;                   // sm__sass_thread_inst_executed_op_{f,d,h}{add,mul,fma}
  MaybeFigure waves_per_sm;            // Waves Per SM | launch__waves_per_multiprocessor
  MaybeFigure sm_count;                // # SMs | launch__sm_count
};

KernelFigures kernel_figures(const Launch& launch);

}  // namespace culprit::importers::ncu
