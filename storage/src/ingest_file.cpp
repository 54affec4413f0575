// copy_run from a run file attached to the store: its tables copied with INSERT ... SELECT, its
// packs streamed one at a time (read, checked, written, shown to the observer), so a run of
// millions of events passes through memory a pack at a time.
#include <stdexcept>

#include "culprit/storage/ingest.hpp"
#include "ingest_parts.hpp"
#include "runfile/packed.hpp"
#include "runfile/run_file.hpp"

namespace culprit::storage {
namespace {

constexpr const char* kClockColumns =
    "rank, host, ref_ns, offset_ns, drift_ppm, uncertainty_ns, start_rtt_ns, end_rtt_ns, "
    "exchanges";

// Every event of the attached run file as records (kind and name ids of the store's run):
// its rows, interned here for format 1, and its packs unpacked.
std::vector<runfile::EventRecord> read_run_file_events(Db& store, const AttachedRunFile& file,
                                                       std::int64_t run_id) {
  std::vector<runfile::EventRecord> events;
  {
    Statement rows(store,
                   file.format() == 1
                       ? "SELECT e.rank, e.step, e.microbatch, e.layer, e.seq, k.id, n.id, "
                         "e.begin_ns, e.end_ns, e.bytes, e.device, e.stream FROM run.events e "
                         "JOIN event_kinds k ON k.name = e.kind "
                         "JOIN run_event_names n ON n.run_id = ?1 AND n.name = e.name"
                       : std::string("SELECT ") + kEventColumns + " FROM run.event_rows");
    if (file.format() == 1) rows.bind(1, run_id);
    try {
      while (rows.step()) events.push_back(read_event_record(rows));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error("bad run file " + file.path() + ": event row " +
                               std::to_string(events.size() + 1) + ": " + e.what() +
                               " (no writer writes one): the file is corrupt");
    }
  }
  if (file.format() >= 3) {
    Statement packs(store, "SELECT rank, events, data FROM run.event_packs ORDER BY rank, rowid");
    while (packs.step()) {
      const auto blob = packs.column_blob(2);
      try {
        const runfile::PackReader reader(blob.data(), blob.size(), packs.column_int(1));
        runfile::unpack_events(reader, static_cast<std::int32_t>(packs.column_int(0)), events);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error("bad run file " + file.path() + ": event pack of rank " +
                                 std::to_string(packs.column_int(0)) + ": " + e.what());
      }
    }
  }
  return events;
}

// Throws "bad run file PATH: event pack of rank R: WHY" unless the pack's header and size are
// those of a layout this culprit reads.
void check_pack(const AttachedRunFile& file, std::int64_t rank, std::int64_t count,
                std::span<const unsigned char> data) {
  std::string why;
  if (rank < 0) {
    why = "a negative rank";
  } else if (data.size() < runfile::kPackHeaderBytes || count < 0) {
    why = "not an event pack";
  } else {
    std::size_t expected = runfile::kPackHeaderBytes;
    for (int c = 0; c < runfile::kPackColumns; ++c) {
      expected += static_cast<std::size_t>(count) * data[2 + static_cast<std::size_t>(c)];
    }
    if (data[0] != runfile::kPackLayout || data[1] != runfile::kPackColumns)
      why = "layout " + std::to_string(data[0]) + ", this culprit reads " +
            std::to_string(runfile::kPackLayout);
    else if (expected != data.size())
      why = std::to_string(data.size()) + " bytes for " + std::to_string(count) + " events, not " +
            std::to_string(expected);
    else
      for (int c = 0; c < runfile::kPackColumns && why.empty(); ++c) {
        if (data[2 + static_cast<std::size_t>(c)] > 8)
          why = "column " + std::to_string(c) + " has width " +
                std::to_string(data[2 + static_cast<std::size_t>(c)]);
      }
  }
  if (!why.empty()) {
    throw std::runtime_error("bad run file " + file.path() + ": event pack of rank " +
                             std::to_string(rank) + ": " + why);
  }
}

// The run file's clock models, for the observer.
std::vector<ClockModel> read_clock_models(Db& store) {
  std::vector<ClockModel> clocks;
  Statement stmt(store,
                 "SELECT rank, ref_ns, offset_ns, drift_ppm, uncertainty_ns FROM run.clock_models");
  while (stmt.step()) {
    clocks.push_back({.rank = static_cast<std::int32_t>(stmt.column_int(0)),
                      .ref_ns = stmt.column_int(1),
                      .offset_ns = stmt.column_double(2),
                      .drift_ppm = stmt.column_double(3),
                      .uncertainty_ns = stmt.column_double(4)});
  }
  return clocks;
}

// Packs only (the C++ writer): each pack read once (in rank order, through the run file's index
// on rank), checked and written as it is: no decoding beyond what the observer asks for.
std::int64_t stream_packs(Db& store, const AttachedRunFile& file, std::int64_t run_id,
                          IngestObserver* observer) {
  PackInserter insert(store, run_id, run_name_count(store, run_id), "bad run file " + file.path(),
                      observer);
  Statement packs(store, "SELECT rank, events, data FROM run.event_packs ORDER BY rank, rowid");
  packs.purpose("reading the run file's event packs for run " + std::to_string(run_id));
  while (packs.step()) {
    const std::int64_t rank = packs.column_int(0);
    const std::int64_t count = packs.column_int(1);
    const std::span<const unsigned char> data = packs.column_blob(2);
    check_pack(file, rank, count, data);
    insert.add(static_cast<std::int32_t>(rank), count, data);
  }
  return insert.events();
}

}  // namespace

std::int64_t copy_run_file(Db& store, const AttachedRunFile& file, std::int64_t run_id,
                           IngestObserver* observer) {
  clear_run_data(store, run_id);
  auto copy = [&](const std::string& what, const std::string& sql) {
    Statement stmt(store, sql);
    stmt.purpose("copying the run file's " + what + " into run " + std::to_string(run_id));
    stmt.bind(1, run_id);
    stmt.run();
  };
  copy("meta", "INSERT INTO run_meta (run_id, key, value) SELECT ?1, key, value FROM run.meta");
  copy("configuration echo",
       "INSERT INTO run_config_echo (run_id, json) SELECT ?1, json FROM run.config_echo");
  copy("provenance",
       "INSERT INTO provenance (run_id, rank, key, value) SELECT ?1, rank, key, value "
       "FROM run.provenance");
  copy("clock models", std::string("INSERT INTO clock_models (run_id, ") + kClockColumns +
                           ") SELECT ?1, " + kClockColumns + " FROM run.clock_models");
  if (observer != nullptr) observer->clock_models(read_clock_models(store));
  if (file.format() == 1) {
    // Format 1: names interned here (ids in name order), kinds through event_kinds.
    copy("event names",
         "INSERT INTO run_event_names (run_id, id, name) SELECT ?1, "
         "row_number() OVER (ORDER BY name) - 1, name FROM (SELECT DISTINCT name FROM "
         "run.events)");
  } else {
    copy("event names",
         "INSERT INTO run_event_names (run_id, id, name) SELECT ?1, id, name FROM "
         "run.event_names");
  }
  const bool rows =
      file.format() == 1 || store.query_int("SELECT 1 FROM run.event_rows LIMIT 1").has_value();
  if (rows || file.format() < 3) {
    return insert_events(store, run_id, read_run_file_events(store, file, run_id),
                         "bad run file " + file.path(), observer);
  }
  return stream_packs(store, file, run_id, observer);
}

}  // namespace culprit::storage
