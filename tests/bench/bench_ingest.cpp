// Ingest rate of the results store: a synthetic run file (written with the runfile library's
// writer) is copied into a fresh store with ATTACH + INSERT ... SELECT in one transaction, as
// `culprit run` does. Prints events per second for the write, the copy alone, the whole ingest
// (copy + step times + the run's median, launch::record_run) and load_run, and the bytes each
// stored event takes (SQLite's dbstat: the pages of the event tables / events) in the store's
// layout of schema 3 (interned) and of schema 1 (kind and name as text in every row).
//   bench_ingest [EVENTS (default 2000000)] [FOLDER (default /tmp)]

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>

#include "culprit/launch/record_run.hpp"
#include "culprit/storage/ingest.hpp"
#include "culprit/storage/records.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "stepclock/runfile.hpp"

namespace fs = std::filesystem;
using namespace culprit;

namespace {

constexpr int kRanks = 64;
constexpr int kEventsPerRankStep = 32;  // 1 step event + 31 phases

stepclock::RunFileContents synthetic_run(long events) {
  stepclock::RunFileContents c;
  c.names = {"step", "gemm.fwd", "gemm.bwd.dgrad", "gemm.bwd.wgrad", "allreduce", "optimizer"};
  const long steps = std::max(1L, events / (kRanks * kEventsPerRankStep));
  c.events.reserve(static_cast<std::size_t>(steps * kRanks * kEventsPerRankStep));
  for (int step = 0; step < steps; ++step) {
    for (int rank = 0; rank < kRanks; ++rank) {
      const std::int64_t begin = step * 100'000'000LL + rank * 1000;
      stepclock::EventRecord e;
      e.kind = stepclock::EventKind::kStep;
      e.rank = rank;
      e.step = step;
      e.begin_ns = begin;
      e.end_ns = begin + 99'000'000;
      c.events.push_back(e);
      for (int k = 1; k < kEventsPerRankStep; ++k) {
        stepclock::EventRecord p = e;
        p.name = static_cast<std::uint16_t>(1 + k % 5);
        p.kind = p.name == 4 ? stepclock::EventKind::kCollective : stepclock::EventKind::kCompute;
        p.layer = k / 4;
        p.microbatch = k % 2;
        p.seq = p.name == 4 ? k : -1;
        p.bytes = p.name == 4 ? 1 << 20 : 0;
        p.begin_ns = begin + k * 3'000'000LL;
        p.end_ns = p.begin_ns + 2'500'000;
        c.events.push_back(p);
      }
    }
  }
  for (int rank = 0; rank < kRanks; ++rank) c.clocks.push_back({rank, "h", 0, 0, 0, 0, 0, 0, 10});
  c.meta = {{"ranks", std::to_string(kRanks)}, {"warmup_steps", "2"}};
  c.config_json = "{}";
  return c;
}

// CPU seconds of this process: on a shared machine the wall-clock rate also measures the
// neighbours, so both are printed.
double cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::int64_t new_run(storage::Db& db, int repetition) {
  storage::ExperimentRecord e;
  e.name = "bench";
  e.manifest_hash = "h";
  auto found = storage::find_experiment(db, "bench");
  const auto experiment = found ? found->id : storage::insert_experiment(db, e);
  storage::ConfigurationRecord c;
  c.label = "baseline";
  c.backend = "sim";
  c.resolved_json = "{}";
  c.config_hash = "c";
  const auto config = storage::ensure_configuration(db, experiment, c);
  return storage::ensure_run(db, experiment, {config, repetition}, repetition, 1, "").id;
}

// Bytes of the pages holding `tables` (dbstat) per event.
double bytes_per_event(storage::Db& db, const std::string& tables, double events) {
  const auto bytes =
      db.query_int("SELECT sum(pgsize) FROM dbstat WHERE name IN (" + tables + ")").value_or(0);
  return static_cast<double>(bytes) / events;
}

// The same events in a store of schema version 1 (before interning): its DDL, rows copied
// from the run file's text view.
double bytes_per_event_schema1(const std::string& run_file, const std::string& path, double n) {
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(path + s);
  double result = 0;
  {
    storage::Db db(path);
    db.exec("PRAGMA page_size=65536");
    db.exec(storage::store_migration(0));
    storage::Statement attach(db, "ATTACH DATABASE ?1 AS run");
    attach.bind(1, run_file).run();
    db.exec("INSERT INTO main.events SELECT * FROM run.events");
    result = bytes_per_event(db, "'events'", n);
  }
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(path + s);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const long events = argc > 1 ? std::stol(argv[1]) : 2'000'000;
  const fs::path folder = argc > 2 ? argv[2] : "/tmp";
  const std::string run_file = (folder / "culprit_bench_ingest.run.db").string();
  const std::string store_path = (folder / "culprit_bench_ingest.db").string();
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(store_path + s);
  fs::remove(run_file);

  const auto contents = synthetic_run(events);
  auto t = std::chrono::steady_clock::now();
  double cpu0 = cpu_seconds();
  stepclock::write_run_file(run_file, contents);
  const auto n = static_cast<double>(contents.events.size());
  std::printf("run file: %.0f events (%d ranks), written in %.2f s (%.2f M events/s; %.2f CPU s)\n",
              n, kRanks, seconds(t), n / seconds(t) / 1e6, cpu_seconds() - cpu0);

  auto db = storage::open_store(store_path);
  {
    const auto run_id = new_run(*db, 0);
    t = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    storage::AttachedRunFile file(*db, run_file);
    storage::Transaction tx(*db);
    storage::copy_run(*db, &file, run_id);
    tx.commit();
    const double s = seconds(t);
    const double c = cpu_seconds() - cpu;
    std::printf(
        "copy (ATTACH + INSERT ... SELECT, one transaction): %.2f s, %.2f M events/s "
        "(%.2f CPU s, %.2f M events per CPU s)\n",
        s, n / s / 1e6, c, n / c / 1e6);
  }
  {
    const auto run_id = new_run(*db, 1);
    t = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    storage::RunFinish finish;
    const auto outcome = launch::record_run(*db, run_id, run_file, finish);
    const double s = seconds(t);
    const double c = cpu_seconds() - cpu;
    std::printf(
        "full ingest (copy + load + step times + median): %.2f s, %.2f M events/s "
        "(%.2f CPU s; %s)\n",
        s, n / s / 1e6, c, outcome.ok ? "ok" : outcome.error.c_str());
  }
  {
    t = std::chrono::steady_clock::now();
    cpu0 = cpu_seconds();
    const auto run = storage::load_run(*db, 1);
    const double s = seconds(t);
    std::printf("load_run: %.2f s, %.2f M events/s (%.2f CPU s)\n", s,
                static_cast<double>(run.events.size()) / s / 1e6, cpu_seconds() - cpu0);
  }
  std::printf("store: %.0f MiB for %.0f events\n",
              static_cast<double>(fs::file_size(store_path) + fs::file_size(store_path + "-wal")) /
                  (1 << 20),
              2 * n);
  db->exec("PRAGMA wal_checkpoint(TRUNCATE)");
  std::printf(
      "bytes per stored event: %.1f (schema 4: run_event_packs + run_event_names), %.1f (schema 1: "
      "kind and name as text)\n",
      bytes_per_event(*db, "'run_event_packs', 'run_event_names'", 2 * n),
      bytes_per_event_schema1(run_file, store_path + ".schema1", n));
  db.reset();
  for (const char* s : {"", "-wal", "-shm"}) fs::remove(store_path + s);
  fs::remove(run_file);
  return 0;
}
