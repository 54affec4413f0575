#pragma once
// Kineto JSON, streamed with simdjson's On-Demand API (no DOM of the file): the top-level
// facts and one RawEvent per element of traceEvents. An event whose "ph" (read before the fields
// after it) is not a complete or duration event ('X', 'B', 'E') is handed on with its phase only.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "raw_event.hpp"

namespace culprit::importers {

struct KinetoHeader {
  bool has_trace_events = false;
  bool has_base_time = false;
  std::int64_t base_time_ns = 0;
  // distributedInfo's values as written (checked by parse_kineto, which knows the file).
  std::optional<std::int64_t> rank;
  std::optional<std::int64_t> world_size;
  std::string bad_rank, bad_world_size;  // the value as written, when not a whole number
  std::string backend;
  // distributedInfo.pg_config: process group name -> its global ranks
  std::map<std::string, std::vector<int>> group_ranks;
  std::int64_t schema_version = -1;
  std::int64_t events = 0;
};

// `padded` must hold the file's bytes followed by at least simdjson::SIMDJSON_PADDING spare
// bytes of capacity. Throws culprit::UsageError with the byte offset on malformed JSON.
KinetoHeader tokenize_kineto(const std::string& padded, std::size_t length, const std::string& file,
                             const RawEventSink& sink);

}  // namespace culprit::importers
