#pragma once
// The ranks inside one Nsight Systems export (private to importers/nsys): its units (a process
// that ran kernels, or one of its devices) and each unit's records as a RankTrace.

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
  RankTrace whole;                                  // the export as read
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
