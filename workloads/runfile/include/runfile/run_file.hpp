#pragma once
// The run file: the one contract between every source of step timing and the orchestrator.
// A run file is a SQLite database holding one run's raw facts (docs/schema.md, "Run file").
// Raw timestamps are stored exactly as read on each rank; alignment is derived later from the
// clock models, never written back. This library is the contract's only owner: the DDL
// (run_file.sql), the event columns, EventKind, the row structs and the writer.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runfile {

// Format 3: events packed per rank in event_packs (runfile/packed.hpp) or, as format 2 wrote
// them (the Python module still does), rows of event_rows; the `events` view shows both as text.
// Formats 2 (rows only) and 1 (kind and name as text in `events`) are still read by storage.
inline constexpr int kFormatVersion = 3;

enum class EventKind : std::uint8_t { kCompute = 0, kCollective = 1, kHost = 2, kStep = 3 };
inline constexpr int kEventKindCount = 4;

// The text of each EventKind (event_kinds.name; the `kind` column of format 1).
const char* event_kind_name(EventKind kind);
// The kind spelled `name` (event_kind_name's inverse); kCompute for a name it does not know.
EventKind parse_event_kind(std::string_view name);

// One timed region on one rank. Identifiers that do not apply are -1 (e.g. `seq` for a GEMM,
// `layer` for the optimizer). Names are interned: `name` indexes RunFileContents::names.
struct EventRecord {
  std::int64_t begin_ns = 0;  // raw local clock of `rank`
  std::int64_t end_ns = 0;    // raw local clock of `rank`
  std::int64_t bytes = 0;     // payload of a collective, 0 otherwise
  std::int32_t rank = 0;
  std::int32_t step = -1;
  std::int32_t microbatch = -1;
  std::int32_t layer = -1;
  std::int32_t seq = -1;  // collective sequence number within the step, -1 if not a collective
  std::int16_t device = -1;
  std::int16_t stream = -1;
  std::uint16_t name = 0;
  EventKind kind = EventKind::kCompute;
};

// Maps a rank's raw clock t onto rank 0's clock:
//   aligned(t) = t + offset_ns + drift_ppm * 1e-6 * (t - ref_ns)
// `uncertainty_ns` bounds |aligned(t) - true rank-0 time| (half the minimum round trip).
struct ClockModel {
  std::int32_t rank = 0;
  std::string host;
  std::int64_t ref_ns = 0;
  double offset_ns = 0.0;
  double drift_ppm = 0.0;
  double uncertainty_ns = 0.0;
  double start_rtt_ns = 0.0;  // minimum round trip of the start exchange
  double end_rtt_ns = 0.0;    // minimum round trip of the end exchange
  std::int32_t exchanges = 0;
};

// aligned(t) above, the contract's one formula: for a ClockModel and for any slimmer copy of its
// fields a reader keeps (the store's storage::ClockModel).
template <typename Model>
double aligned_ns(const Model& model, std::int64_t raw_ns) {
  return static_cast<double>(raw_ns) + model.offset_ns +
         model.drift_ppm * 1e-6 * static_cast<double>(raw_ns - model.ref_ns);
}

struct ProvenanceEntry {
  std::int32_t rank = -1;  // -1: applies to the whole job
  std::string key;
  std::string value;
};

struct RunFileContents {
  std::vector<std::string> names;  // interned event names
  std::vector<EventRecord> events;
  std::vector<ClockModel> clocks;
  std::vector<std::pair<std::string, std::string>> meta;  // see docs/schema.md for the keys
  std::vector<ProvenanceEntry> provenance;
  std::string config_json;  // the resolved configuration, echoed verbatim (holds injection truth)
};

// kDurable: the file is synced before the rename (a run file read after a crash). kScratch: no
// fsync, for a file the same process reads back and removes (a hand-over to the store, whose
// own commit is durable; culprit import now skips the file: storage::copy_run from memory); the
// rename keeps it atomic.
enum class Durability { kDurable, kScratch };

// Writes `contents` to `path` atomically: a temporary file beside it is written, synced and
// renamed, so no reader ever sees a half-written run file under the final name.
// Throws std::runtime_error naming the path and the SQLite error on failure.
void write_run_file(const std::string& path, const RunFileContents& contents,
                    Durability durability = Durability::kDurable);

// The events of one rank, asked for by write_run_file rank by rank (0 .. ranks - 1): `out` is
// to be filled with that rank's events (any order; they are packed in (step, begin) order).
using RankEventSource = std::function<void(std::int32_t rank, std::vector<EventRecord>& out)>;

// write_run_file for a source too large to hold every event as a record at once (131,072
// simulated ranks): `header` gives everything but the events (its own events must be empty),
// `events` each rank's in turn, packed and written before the next rank is asked for.
void write_run_file(const std::string& path, const RunFileContents& header, std::int32_t ranks,
                    const RankEventSource& events, Durability durability = Durability::kDurable);

// What every run file's contents must satisfy before they are written (write_run_file) or
// ingested without a file (the store's copy_run): every event's name indexes `names`,
// no rank is negative, no name is interned twice, no rank has two clock models. Throws
// std::runtime_error "<where>: ..." saying which.
void check_contents(const RunFileContents& contents, const std::string& where);

// The whole DDL of a run file (run_file.sql, embedded at build time).
std::string_view schema_sql();

// The statements of schema_sql() that define `name` (a table or view): its CREATE statement
// and the INSERTs into it, each ending in ";". Throws std::logic_error for an unknown name.
// Storage builds its event tables from these, so the store's rows are the run file's.
std::string schema_statements(std::string_view name);
// The column definitions of table `table` in run_file.sql from column `first` to the last, a line
// each, every line ending in a comma: for a table that keeps those columns beside its own (the
// results store's clock_models). Throws std::logic_error when the table has no such column.
std::string column_definitions(std::string_view table, std::string_view first);

// The columns of event_rows, in order (the same in the store).
inline constexpr const char* kEventColumns =
    "rank, step, microbatch, layer, seq, kind, name, begin_ns, end_ns, bytes, device, stream";

}  // namespace runfile
