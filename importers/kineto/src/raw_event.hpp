#pragma once
// A trace event as a tokenizer read it (bytes -> record), before the parser classifies it.
// Views point into the tokenizer's buffers and are valid only during the callback.

#include <cstdint>
#include <functional>
#include <string_view>

namespace culprit::importers {

struct RawEvent {
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  std::int64_t tid = 0;
  std::int64_t pid = 0;
  std::int64_t ts_ns = 0;  // as written, in ns (µs digits converted exactly)
  std::int64_t dur_ns = 0;
  bool has_ts = false;
  bool has_dur = false;
  // args the mapping rules use; -1 / empty when absent
  std::int64_t numel = -1;
  std::string_view dtype;
  std::string_view group;
  std::int64_t seq = -1;
  std::int64_t correlation = -1;
  std::int64_t device = -1;
  std::int64_t stream = -1;
  std::size_t offset = 0;  // byte offset of the event in the file
};

using RawEventSink = std::function<void(const RawEvent&)>;

// "123", "123.456", "-1.5", "1e3" µs -> ns, exactly for plain decimals (no double rounding).
// Returns false when the text is not a number.
bool micros_to_ns(std::string_view text, std::int64_t& ns);

}  // namespace culprit::importers
