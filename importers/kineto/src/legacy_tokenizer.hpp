#pragma once
// The legacy `export_chrome_trace` array (PyTorch without Kineto). Its writer does not escape
// names, so a JSON parser would reject valid traces whose names hold a quote or a backslash:
// this tokenizer reads the writer's fixed layout instead, and anything else is an error that
// names the byte offset.
//   [{"name": "<raw>", "ph": "X", "ts": 118, "dur": 28, "tid": 1, "pid": "CPU functions",
//     "args": {}}, ...]

#include <cstdint>
#include <string>

#include "raw_event.hpp"

namespace culprit::importers {

// Returns the number of events read.
std::int64_t tokenize_legacy(const std::string& bytes, const std::string& file,
                             const RawEventSink& sink);

}  // namespace culprit::importers
