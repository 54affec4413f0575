#pragma once
// Evidence attached to a stored run (schema 5): Nsight Compute kernel counters and GPU
// telemetry samples, per rank. Writing them never touches steps, events or attribution.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/storage/db.hpp"

namespace culprit::storage {

struct KernelCounterRow {
  int rank = 0;
  std::string phase;   // the run's phase the kernel belongs to; "" when unmatched
  std::string source;  // the export's file name
  std::string kernel;
  std::int64_t launch_id = 0;
  std::string section, metric, unit;
  std::optional<double> value;  // canonical unit; nullopt when not a number
  std::string text;
};

struct TelemetryRow {
  int rank = 0;
  int gpu = 0;
  std::string host, source, field;
  double time_ns = 0.0;  // on the run's aligned clock (Unix time - meta unix_offset_ns)
  double value = 0.0;
};

// True when the store has run `run_id`.
bool run_exists(Db& store, std::int64_t run_id);

// Replaces the rows of (run, each row's rank, source) by `rows`, in one transaction.
void put_kernel_counters(Db& store, std::int64_t run_id, const std::vector<KernelCounterRow>& rows);
std::vector<KernelCounterRow> load_kernel_counters(Db& store, std::int64_t run_id);

// Each rank's provenance (rank >= 0: host, device, env.*), [rank][key] -> value: where its GPU
// is, for placing telemetry samples on ranks.
std::map<int, std::map<std::string, std::string>> load_rank_provenance(Db& store,
                                                                       std::int64_t run_id);

void put_telemetry(Db& store, std::int64_t run_id, const std::vector<TelemetryRow>& rows);
std::vector<TelemetryRow> load_telemetry(Db& store, std::int64_t run_id);

}  // namespace culprit::storage
