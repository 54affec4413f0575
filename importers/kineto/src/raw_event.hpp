#pragma once
// A trace event as a tokenizer read it (bytes -> record), before the parser classifies it.
// Views point into the tokenizer's buffers and are valid only during the callback.

#include <array>
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
  // The shapes of a GEMM operator's first inputs ("Input Dims" of aten::mm, addmm, bmm, ...;
  // read only for those names): up to 4 inputs of up to 6 dimensions, rank -1 when unread.
  struct Shapes {
    int inputs = 0;
    std::array<int, 4> rank{};
    std::array<std::array<std::int64_t, 6>, 4> dims;  // only [i][0, rank[i]) is set
  } shapes;
};

// aten::mm, aten::addmm, aten::bmm, aten::baddbmm, aten::matmul, aten::linear, aten::_scaled_mm.
bool is_gemm_operator(std::string_view name);
// 2 x M x N x K (x batch) of a GEMM operator from its input shapes, -1 when they do not say.
double gemm_flops(std::string_view name, const RawEvent::Shapes& shapes);

using RawEventSink = std::function<void(const RawEvent&)>;

// "123", "123.456", "-1.5", "1e3" µs -> ns, exactly for plain decimals (no double rounding).
// Returns false when the text is not a number.
bool micros_to_ns(std::string_view text, std::int64_t& ns);

}  // namespace culprit::importers
