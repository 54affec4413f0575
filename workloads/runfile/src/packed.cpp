#include "runfile/packed.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace runfile {
namespace {

// The values of one column, the switch outside the loop.
void column_values(std::span<const EventRecord> events, int column, std::int64_t* out) {
  auto each = [&](auto&& get) {
    for (std::size_t i = 0; i < events.size(); ++i) out[i] = get(events[i]);
  };
  switch (column) {
    case kPackStep:
      return each([](const EventRecord& e) { return std::int64_t{e.step}; });
    case kPackMicrobatch:
      return each([](const EventRecord& e) { return std::int64_t{e.microbatch}; });
    case kPackLayer:
      return each([](const EventRecord& e) { return std::int64_t{e.layer}; });
    case kPackSeq:
      return each([](const EventRecord& e) { return std::int64_t{e.seq}; });
    case kPackKind:
      return each(
          [](const EventRecord& e) { return std::int64_t{static_cast<std::uint8_t>(e.kind)}; });
    case kPackName:
      return each([](const EventRecord& e) { return std::int64_t{e.name}; });
    case kPackBegin:
      return each([](const EventRecord& e) { return e.begin_ns; });
    case kPackDuration:
      return each([](const EventRecord& e) {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(e.end_ns) -
                                         static_cast<std::uint64_t>(e.begin_ns));
      });
    case kPackBytes:
      return each([](const EventRecord& e) { return e.bytes; });
    case kPackDevice:
      return each([](const EventRecord& e) { return std::int64_t{e.device}; });
    default:
      return each([](const EventRecord& e) { return std::int64_t{e.stream}; });
  }
}

int bytes_for(std::uint64_t range) {
  int w = 0;
  while (range != 0) {
    range >>= 8;
    ++w;
  }
  return w;
}

void put_u64(unsigned char* at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t get_bytes(const unsigned char* at, int width) {
  std::uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, at, static_cast<std::size_t>(width));
  } else {
    for (int i = 0; i < width; ++i) v |= std::uint64_t{at[i]} << (8 * i);
  }
  return v;
}

template <int W>
void decode(const unsigned char* at, std::size_t n, std::uint64_t base, std::int64_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, at + i * W, W);
    } else {
      v = get_bytes(at + i * W, W);
    }
    out[i] = static_cast<std::int64_t>(base + v);
  }
}

// decode<1> .. decode<8>, indexed by width - 1: one instantiation per byte width.
using Decoder = void (*)(const unsigned char*, std::size_t, std::uint64_t, std::int64_t*);
template <std::size_t... Width>
constexpr std::array<Decoder, sizeof...(Width)> make_decoders(std::index_sequence<Width...>) {
  return {&decode<static_cast<int>(Width) + 1>...};
}
constexpr auto kDecoders = make_decoders(std::make_index_sequence<8>());

}  // namespace

std::vector<unsigned char> pack_events(std::span<const EventRecord> events) {
  const std::size_t n = events.size();
  std::vector<std::int64_t> values(n * kPackColumns);
  int width[kPackColumns];
  std::uint64_t base[kPackColumns];
  std::size_t total = kPackHeaderBytes;
  for (int c = 0; c < kPackColumns; ++c) {
    std::int64_t* v = values.data() + n * static_cast<std::size_t>(c);
    column_values(events, c, v);
    const auto [lo, hi] =
        n == 0 ? std::pair<std::int64_t*, std::int64_t*>(v, v) : std::minmax_element(v, v + n);
    const std::int64_t min = n == 0 ? 0 : *lo;
    const std::int64_t max = n == 0 ? 0 : *hi;
    width[c] = bytes_for(static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min));
    // Width 8 stores the values themselves, so a plain SQL sum never overflows.
    base[c] = width[c] == 8 ? 0 : static_cast<std::uint64_t>(min);
    total += n * static_cast<std::size_t>(width[c]);
  }
  std::vector<unsigned char> out(total);
  out[0] = kPackLayout;
  out[1] = kPackColumns;
  unsigned char* at = out.data() + kPackHeaderBytes;
  for (int c = 0; c < kPackColumns; ++c) {
    out[2 + static_cast<std::size_t>(c)] = static_cast<unsigned char>(width[c]);
    put_u64(out.data() + 2 + kPackColumns + 8 * static_cast<std::size_t>(c), base[c]);
    const int w = width[c];
    const std::int64_t* v = values.data() + n * static_cast<std::size_t>(c);
    for (std::size_t i = 0; i < n && w > 0; ++i) {
      const std::uint64_t u = static_cast<std::uint64_t>(v[i]) - base[c];
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(at, &u, static_cast<std::size_t>(w));
      } else {
        for (int b = 0; b < w; ++b) at[b] = static_cast<unsigned char>(u >> (8 * b));
      }
      at += w;
    }
  }
  return out;
}

std::vector<EventPack> pack_by_rank(std::span<const EventRecord> events) {
  // A counting sort by rank (stable), then each rank's events by (step, begin_ns), stable.
  std::int32_t max_rank = -1;
  std::int32_t min_rank = 0;
  for (const EventRecord& e : events) {
    max_rank = std::max(max_rank, e.rank);
    min_rank = std::min(min_rank, e.rank);
  }
  if (min_rank < 0) throw std::invalid_argument("event of rank " + std::to_string(min_rank));
  std::vector<std::size_t> start(static_cast<std::size_t>(max_rank) + 2, 0);
  for (const EventRecord& e : events) ++start[static_cast<std::size_t>(e.rank) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::uint32_t> order(events.size());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < events.size(); ++i) {
      order[next[static_cast<std::size_t>(events[i].rank)]++] = static_cast<std::uint32_t>(i);
    }
  }
  std::vector<EventPack> packs;
  std::vector<EventRecord> rank_events;
  for (std::size_t r = 0; r + 1 < start.size(); ++r) {
    if (start[r] == start[r + 1]) continue;
    rank_events.clear();
    for (std::size_t i = start[r]; i < start[r + 1]; ++i) rank_events.push_back(events[order[i]]);
    pack_rank(rank_events, packs);
  }
  return packs;
}

void pack_rank(std::vector<EventRecord>& rank_events, std::vector<EventPack>& packs) {
  if (rank_events.empty()) return;
  auto before = [](const EventRecord& a, const EventRecord& b) {
    return a.step != b.step ? a.step < b.step : a.begin_ns < b.begin_ns;
  };
  if (!std::is_sorted(rank_events.begin(), rank_events.end(), before)) {
    std::stable_sort(rank_events.begin(), rank_events.end(), before);
  }
  for (std::size_t first = 0; first < rank_events.size(); first += kPackMaxEvents) {
    const std::size_t n = std::min(kPackMaxEvents, rank_events.size() - first);
    EventPack pack;
    pack.rank = rank_events.front().rank;
    pack.count = static_cast<std::int64_t>(n);
    pack.data = pack_events(std::span<const EventRecord>(rank_events).subspan(first, n));
    packs.push_back(std::move(pack));
  }
}

PackReader::PackReader(const unsigned char* data, std::size_t size, std::int64_t count)
    : data_(data), count_(static_cast<std::size_t>(std::max<std::int64_t>(count, 0))) {
  if (count < 0) throw std::invalid_argument("negative event count " + std::to_string(count));
  if (size < kPackHeaderBytes || data[0] != kPackLayout || data[1] != kPackColumns) {
    throw std::invalid_argument("not an event pack of layout " + std::to_string(kPackLayout) +
                                " (" + std::to_string(size) + " bytes)");
  }
  std::size_t at = kPackHeaderBytes;
  for (int c = 0; c < kPackColumns; ++c) {
    width_[c] = data[2 + c];
    if (width_[c] > 8) {
      throw std::invalid_argument("column " + std::to_string(c) + " has width " +
                                  std::to_string(width_[c]));
    }
    base_[c] = get_bytes(data + 2 + kPackColumns + 8 * static_cast<std::size_t>(c), 8);
    offset_[c] = at;
    at += count_ * static_cast<std::size_t>(width_[c]);
  }
  if (at != size) {
    throw std::invalid_argument("an event pack of " + std::to_string(count_) + " events holds " +
                                std::to_string(size) + " bytes, not " + std::to_string(at));
  }
}

void PackReader::column(int c, std::int64_t* out) const {
  const unsigned char* at = data_ + offset_[c];
  if (width_[c] == 0) {
    std::fill(out, out + count_, static_cast<std::int64_t>(base_[c]));
    return;
  }
  // PackReader's constructor refused widths past 8.
  kDecoders[static_cast<std::size_t>(width_[c] - 1)](at, count_, base_[c], out);
}

std::int32_t pack_id(std::int64_t value, const char* column) {
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument(
        std::string(column) + " " + std::to_string(value) +
        " does not fit 32 bits (no writer writes one): the pack is corrupt");
  }
  return static_cast<std::int32_t>(value);
}

void unpack_events(const PackReader& pack, std::int32_t rank, std::vector<EventRecord>& out) {
  const std::size_t n = pack.count();
  const std::size_t first = out.size();
  out.resize(first + n);
  std::vector<std::int64_t> values(n);
  for (int c = 0; c < kPackColumns; ++c) {
    pack.column(c, values.data());
    for (std::size_t i = 0; i < n; ++i) {
      EventRecord& e = out[first + i];
      const std::int64_t v = values[i];
      switch (c) {
        case kPackStep:
          e.rank = rank;
          e.step = pack_id(v, "step");
          break;
        case kPackMicrobatch:
          e.microbatch = pack_id(v, "microbatch");
          break;
        case kPackLayer:
          e.layer = pack_id(v, "layer");
          break;
        case kPackSeq:
          e.seq = pack_id(v, "seq");
          break;
        case kPackKind:
          e.kind = static_cast<EventKind>(v);
          break;
        case kPackName:
          e.name = static_cast<std::uint16_t>(v);
          break;
        case kPackBegin:
          e.begin_ns = v;
          break;
        case kPackDuration:
          e.end_ns = static_cast<std::int64_t>(static_cast<std::uint64_t>(e.begin_ns) +
                                               static_cast<std::uint64_t>(v));
          break;
        case kPackBytes:
          e.bytes = v;
          break;
        case kPackDevice:
          e.device = static_cast<std::int16_t>(v);
          break;
        default:
          e.stream = static_cast<std::int16_t>(v);
          break;
      }
    }
  }
}

std::string packed_events_select(const std::string& table, const std::string& extra) {
  // Plain SQL has no integer-from-bytes function: a byte's value is its position in a blob of
  // the 256 byte values, less one. (`|` and `<<` have equal precedence in SQLite, hence the
  // parentheses.)
  auto byte = [](const std::string& blob, const std::string& pos) {
    return "(instr(lut.b, substr(" + blob + ", " + pos + ", 1)) - 1)";
  };
  std::string lut = "X'";
  static const char* const kHex = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    lut += kHex[b >> 4];
    lut += kHex[b & 15];
  }
  lut += "'";
  std::string sql = "WITH RECURSIVE lut(b) AS (VALUES (" + lut + ")),\n  h0 AS (SELECT " +
                    (extra.empty() ? "" : "p." + extra + ", ") +
                    "p.rowid AS pid, p.rank AS rank, p.events AS n";
  for (int c = 0; c < kPackColumns; ++c) {
    sql += ",\n    " + byte("p.data", std::to_string(3 + c)) + " AS w" + std::to_string(c);
  }
  for (int c = 0; c < kPackColumns; ++c) {
    sql += ",\n    (";
    for (int j = 0; j < 8; ++j) {
      const std::string b = byte("p.data", std::to_string(3 + kPackColumns + 8 * c + j));
      sql += j == 0 ? b : " | (" + b + " << " + std::to_string(8 * j) + ")";
    }
    sql += ") AS b" + std::to_string(c);
  }
  // Materialized: each pack's header is decoded once, not once per event. The blob itself is
  // read from the table (joined again below), where SQLite reads it in place: a copy of it in
  // the CTE would be copied again for every byte read.
  sql += "\n    FROM " + table + " p, lut),\n  h AS MATERIALIZED (SELECT *";
  // Column c starts after the header and the columns before it (1-based for substr).
  std::string start = std::to_string(kPackHeaderBytes + 1);
  for (int c = 0; c < kPackColumns; ++c) {
    sql += ", " + start + " AS s" + std::to_string(c);
    start += " + n * w" + std::to_string(c);
  }
  sql +=
      " FROM h0),\n  idx(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM idx WHERE k + 1 < "
      "(SELECT max(events) FROM " +
      table + "))\nSELECT " + (extra.empty() ? "" : "h." + extra + ", ") + "h.rank AS rank";
  auto value = [&](int c) {
    const std::string n = std::to_string(c);
    const std::string pos = "h.s" + n + " + idx.k * h.w" + n;
    std::string v = "(h.b" + n + " + (";
    for (int j = 0; j < 8; ++j) {
      // CASE, not a product: the bytes past the width are never read.
      const std::string term = "(CASE WHEN h.w" + n + " > " + std::to_string(j) + " THEN " +
                               byte("p.data", pos + (j ? " + " + std::to_string(j) : "")) +
                               " ELSE 0 END)";
      v += j == 0 ? term : " | (" + term + " << " + std::to_string(8 * j) + ")";
    }
    return v + "))";
  };
  const char* names[kPackColumns] = {"step",     "microbatch", "layer", "seq",    "kind",  "name",
                                     "begin_ns", "end_ns",     "bytes", "device", "stream"};
  for (int c = 0; c < kPackColumns; ++c) {
    sql += ",\n  " + (c == kPackDuration ? value(kPackBegin) + " + " + value(c) : value(c)) +
           " AS " + names[c];
  }
  sql += "\nFROM h JOIN idx ON idx.k < h.n JOIN " + table + " p ON p.rowid = h.pid, lut";
  return sql;
}

}  // namespace runfile
