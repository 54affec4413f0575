#pragma once
// The pieces of copy_run (ingest.hpp) shared by its two sources: a run file (ingest_file.cpp)
// and contents in memory (ingest_contents.cpp).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "culprit/storage/ingest.hpp"

namespace culprit::storage {

// Inserts a run's packs one at a time, counting their events, checks each event's kind and
// name id (below `names`, the run's interned names), and shows each pack's step events to the
// observer (if any) as it writes the pack.
class PackInserter {
 public:
  // `where` begins a refusal's message ("bad run file PATH").
  PackInserter(Db& store, std::int64_t run_id, std::int64_t names, std::string where,
               IngestObserver* observer);
  // A pack whose header and size were checked (runfile::PackReader accepts it); `data` is read,
  // not kept. Throws std::runtime_error "WHERE: event pack of rank R: ..." for a kind or name
  // id out of range.
  void add(std::int32_t rank, std::int64_t count, std::span<const unsigned char> data);
  std::int64_t events() const { return events_; }

 private:
  Statement insert_;
  std::int64_t run_id_;
  std::int64_t names_;
  std::string where_;
  IngestObserver* observer_;
  std::int64_t events_ = 0;
  std::vector<std::int64_t> kinds_, names_of_, steps_, begins_, durations_;  // one pack, reused
};

// The count of the run's interned names (its highest name id + 1), as load_run bounds ids.
std::int64_t run_name_count(Db& store, std::int64_t run_id);

// insert_packs with `where` beginning a refusal's message.
std::int64_t insert_events(Db& store, std::int64_t run_id,
                           const std::vector<runfile::EventRecord>& events,
                           const std::string& where, IngestObserver* observer);

std::int64_t copy_run_file(Db& store, const AttachedRunFile& file, std::int64_t run_id,
                           IngestObserver* observer);
std::int64_t copy_run_contents(Db& store, const runfile::RunFileContents& contents,
                               std::int64_t run_id, IngestObserver* observer);

}  // namespace culprit::storage
