#pragma once
// The ranks inside one file, for every format whose file may hold several (an Nsight Systems
// export of a node; a Kineto trace of a process that drives several GPUs): its units (a process
// that ran kernels, or one of its devices) and each unit's records as a RankTrace. A record's
// process (RankTrace::record_process) is in Nsight Systems' globalPid layout, the OS pid in bits
// 24 and up (a format without globalPids stores pid << 24).

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "culprit/importers/records.hpp"

namespace culprit::importers {

struct Unit {
  std::int64_t process = -1;
  int device = -1;          // its one device, -1 when several
  bool per_device = false;  // the rank is this device only (the process has several)
};

struct ExportUnits {
  RankTrace whole;                                  // the file as read
  std::map<std::int64_t, std::set<int>> processes;  // that ran kernels, with their devices
  std::vector<Unit> units;                          // by (process, device)
};

// A unit per process, or per device (`by`, or where one process drives several GPUs).
ExportUnits export_units(RankTrace whole, RankBy by);
// One RankTrace per unit, in units' order (two or more units); the events of processes that ran
// no kernel are left out (warned on the first), the file's warnings go to the first.
std::vector<RankTrace> unit_traces(ExportUnits& e);
// "process 111, GPU 0"
std::string process_text(const Unit& u);

}  // namespace culprit::importers
