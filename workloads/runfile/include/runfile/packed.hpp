#pragma once
// Packed events (run-file format 3, store schema 4; docs/schema.md, "Packed events"): the
// events of one rank as one blob of fixed-width columns, so writing, copying and loading a run
// moves a few thousand blobs instead of millions of rows.
//
// Layout (all integers little-endian): byte 0 the layout version (1), byte 1 the column count
// (kPackColumns), then one width byte per column (0..8), then one 8-byte base per column
// (two's complement), then the columns one after the other: column c holds `count` values of
// width[c] bytes each, value = base[c] + (unsigned) stored bytes (width 0: every value is the
// base; width 8: the base is 0 and the bytes are the value). Within a pack the events are in
// (step, begin_ns) order. The SQL views of run_file.sql and of the store decode the same bytes.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runfile/run_file.hpp"

namespace runfile {

// The columns of a pack, in their order in the blob (rank is the pack's, not a column).
enum PackColumn : int {
  kPackStep,
  kPackMicrobatch,
  kPackLayer,
  kPackSeq,
  kPackKind,
  kPackName,
  kPackBegin,     // begin_ns
  kPackDuration,  // end_ns - begin_ns
  kPackBytes,
  kPackDevice,
  kPackStream,
  kPackColumns
};
inline constexpr int kPackLayout = 1;
inline constexpr std::size_t kPackHeaderBytes = 2 + kPackColumns + 8 * kPackColumns;
// A rank's events are split into packs of at most this many (about 40 KB each), so a pack stays
// inside one page of the 64 KiB pages and plain SQL reads it in place.
inline constexpr std::size_t kPackMaxEvents = 2048;

// One rank's events packed (or a part of them: a rank's packs follow each other in order).
struct EventPack {
  std::int32_t rank = 0;
  std::int64_t count = 0;
  std::vector<unsigned char> data;
};

// Packs events that all belong to one rank (their rank field is not stored), in the order given
// (any number; pack_by_rank keeps to kPackMaxEvents).
std::vector<unsigned char> pack_events(std::span<const EventRecord> events);

// Groups `events` by rank (packs in rank order, then in order within a rank, at most
// kPackMaxEvents each) and orders each rank's events by (step, begin_ns), keeping the given
// order among equal keys.
std::vector<EventPack> pack_by_rank(std::span<const EventRecord> events);

// Appends the packs of one rank's events (`rank_events`, all of one rank, at least one) to
// `packs`: ordered by (step, begin_ns) in place, keeping the given order among equal keys, at
// most kPackMaxEvents a pack. pack_by_rank calls it for each rank.
void pack_rank(std::vector<EventRecord>& rank_events, std::vector<EventPack>& packs);

// A pack's bytes, checked: the constructor throws std::invalid_argument (what is wrong) when
// the header is not layout 1 or the size does not match `count`.
class PackReader {
 public:
  PackReader(const unsigned char* data, std::size_t size, std::int64_t count);
  std::size_t count() const { return count_; }
  int width(int column) const { return width_[column]; }
  // The column's values, count() of them, into `out`.
  void column(int column, std::int64_t* out) const;

 private:
  const unsigned char* data_;
  std::size_t count_;
  int width_[kPackColumns] = {};
  std::uint64_t base_[kPackColumns] = {};
  std::size_t offset_[kPackColumns] = {};
};

// A pack's step, microbatch, layer or seq (`column`) as an event keeps it. Packs hold 64-bit
// values, but every writer's fields are 32-bit: a wider value is a corrupt pack, refused with
// std::invalid_argument naming the column and the value (narrowed, it would be another step).
std::int32_t pack_id(std::int64_t value, const char* column);

// Unpacks a whole pack into records of `rank`; a corrupt one throws (PackReader, pack_id).
void unpack_events(const PackReader& pack, std::int32_t rank, std::vector<EventRecord>& out);

// A SELECT yielding the run-file event columns (kEventColumns, kind and name still integers)
// decoded in plain SQL from `table` (a rowid table with columns rank, events, data), for the
// sqlite3 views;
// `extra` names further columns of `table` selected first (e.g. "run_id"), "" for none.
std::string packed_events_select(const std::string& table, const std::string& extra);

}  // namespace runfile
