#pragma once
// Turns a simulated run into run-file contents (docs/schema.md): the same meta keys, config
// echo and clock models as the real workload, provenance where it means something for a
// simulation, and started_at/finished_at fixed so a seed always gives the same file.

#include <string>

#include "sim/simulator.hpp"
#include "stepclock/runfile.hpp"
#include "stepmodel/config.hpp"

namespace sim {

// The fixed wall-clock start of every simulated run; finished_at adds the simulated length.
inline constexpr const char* kSimulatedStart = "2000-01-01T00:00:00Z";

struct SimProvenance {
  std::string command_line;  // argv joined by spaces
  std::string binary_hash;   // see hash_file()
};

// Moves the events out of `run`. `config_json` is the resolved configuration verbatim.
stepclock::RunFileContents to_run_file(SimulatedRun&& run, const stepmodel::RunConfig& config,
                                       const std::string& config_json,
                                       const SimProvenance& provenance);

// "fnv1a64:<16 hex digits>" of a file's bytes; throws std::runtime_error if unreadable.
std::string hash_file(const std::string& path);

// ISO-8601 UTC text of kSimulatedStartUnixS plus `seconds`.
std::string simulated_timestamp(std::int64_t seconds);
// 2000-01-01T00:00:00Z as a Unix time: a simulation's started_at, at its clock's 0.
inline constexpr std::int64_t kSimulatedStartUnixS = 946684800;

}  // namespace sim
