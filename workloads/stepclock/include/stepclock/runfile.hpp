#pragma once
// The run file as stepclock's API names it. The contract has one owner, the runfile library
// (workloads/runfile, docs/schema.md "Run file"); these are its types under stepclock's names.

#include "runfile/run_file.hpp"

namespace stepclock {

inline constexpr int kRunFileFormatVersion = runfile::kFormatVersion;

using runfile::ClockModel;
using runfile::Durability;
using runfile::event_kind_name;
using runfile::EventKind;
using runfile::EventRecord;
using runfile::ProvenanceEntry;
using runfile::RunFileContents;
using runfile::write_run_file;

}  // namespace stepclock
