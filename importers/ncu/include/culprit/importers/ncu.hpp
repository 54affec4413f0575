#pragma once
// Nsight Compute CSV exports (`ncu --csv`, `ncu --import F --csv`) -> typed kernel records.
// Both pages ncu writes are read, by column name, never by position:
//  - details (default): one metric a row. The 15-column header (ID, Process ID, Process Name,
//    Host Name, Kernel Name, Context, Stream, Block Size, Grid Size, Device, CC, Section Name,
//    Metric Name, Metric Unit, Metric Value), the 20-column one that adds Rule Name, Rule Type,
//    Rule Description, Estimated Speedup Type, Estimated Speedup, and the pre-2023 12-column one
//    with Kernel Time instead of Block/Grid Size, Device, CC;
//  - raw (`--page raw`): one kernel a row, metric names as columns, a second row of units.
// Lines that are not CSV (==PROF==, ==WARNING==, ==ERROR== and the profiled program's own
// output) are skipped wherever they appear. Values are carried into canonical units through one
// unit table (units.hpp). Bad input throws culprit::UsageError naming the file and line.

#include <cstdint>
#include <string>
#include <vector>

namespace culprit::importers::ncu {

enum class Page { kDetails, kRaw };
const char* page_name(Page page);

struct Metric {
  std::string section;  // Section Name (details page), empty on the raw page
  std::string name;     // Metric Name: a raw name (dram__bytes_op_read.sum) or a label (Duration)
  std::string unit;  // canonical unit (units.hpp): ns, byte, hz, cycle, %, byte/s, ... or as read
  std::string unit_read;  // the unit as the file spells it
  double value = 0.0;     // in `unit`; NaN when the value is not a number (n/a, PolicySpread)
  std::string text;       // the value as written (thousands separators kept)
  int line = 0;           // 1-based line in the file
};

struct Rule {  // a rule row of the 20-column details page
  std::string section, name, type, description, speedup_type;
  double speedup = 0.0;  // NaN when absent
  int line = 0;
};

// One kernel launch: ncu's launch ID and the kernel name are its key (one kernel launched
// several times has several IDs).
struct Launch {
  std::int64_t id = 0;
  std::string kernel;
  std::string process_id, process_name, host, context, stream, block_size, grid_size, device, cc,
      kernel_time;
  int line = 0;  // the launch's first row
  std::vector<Metric> metrics;
  std::vector<Rule> rules;

  // The first metric whose name (or section label) is `name`, else nullptr.
  const Metric* find(const std::string& name) const;
};

struct Report {
  std::string file;
  Page page = Page::kDetails;
  int columns = 0;                    // the header's width (12, 15, 20, or the raw page's)
  std::vector<Launch> launches;       // in the file's order
  std::int64_t rows = 0;              // CSV rows read (metric rows, rule rows, raw kernel rows)
  std::int64_t skipped_lines = 0;     // ==PROF== lines and program output
  std::vector<std::string> warnings;  // ==WARNING== / ==ERROR== lines, odd rows
};

// The command that converts a binary report into what this reader takes.
std::string convert_command(const std::string& path);

// Reads CSV text; `file` names it in errors.
Report parse_ncu_csv(const std::string& bytes, const std::string& file);
// Reads the file at `path`; a .ncu-rep (binary) report is refused with convert_command().
Report read_ncu(const std::string& path);

}  // namespace culprit::importers::ncu
