#pragma once
// The next capture `explain` prints for the blamed phase on the blamed rank: an ncu command a
// user can paste into a POSIX shell as it stands (the blamed instance's NVTX range, else the
// kernel filter escaped for ncu's regex, quoted for the shell; the output file a plain name), and
// the nsys command for GPU telemetry.
#include <string>

namespace culprit::analysis {

struct CaptureTarget {
  // The kernel the attached counters name (a demangled signature or a short name); empty
  // without counters, when the filter is the blamed phase's name.
  std::string kernel;
  std::string phase;
  int rank = 0;
  std::string launch_skip;   // a count, or a named placeholder ("<instances of ...>")
  std::string launch_count;  // likewise
  // The NVTX push/pop range the blamed instance ran in (runfile::phase_range_name), when the run
  // opened one per phase instance (culprit-step: run meta phase_ranges); empty otherwise. The
  // command then filters on it instead of counting launches.
  std::string nvtx_range;
};

struct NextCapture {
  std::string ncu;
  std::string telemetry;
};

NextCapture next_capture(const CaptureTarget& target);

}  // namespace culprit::analysis
