#include "culprit/storage/evidence.hpp"

#include <set>
#include <utility>

namespace culprit::storage {

bool run_exists(Db& store, std::int64_t run_id) {
  Statement q(store, "SELECT 1 FROM runs WHERE id = ?1");
  q.bind(1, run_id);
  return q.step();
}

namespace {

// The (rank, source) pairs of `rows`, whose earlier rows are replaced.
template <class Row>
std::set<std::pair<int, std::string>> replaced(const std::vector<Row>& rows) {
  std::set<std::pair<int, std::string>> out;
  for (const Row& r : rows) out.emplace(r.rank, r.source);
  return out;
}

template <class Row>
void clear_sources(Db& store, const char* table, std::int64_t run_id,
                   const std::vector<Row>& rows) {
  Statement del(store, std::string("DELETE FROM ") + table +
                           " WHERE run_id = ?1 AND rank = ?2 AND source = ?3");
  for (const auto& [rank, source] : replaced(rows)) del.bind_all(run_id, rank, source).run();
}

}  // namespace

void put_kernel_counters(Db& store, std::int64_t run_id,
                         const std::vector<KernelCounterRow>& rows) {
  Transaction tx(store);
  clear_sources(store, "run_kernel_counters", run_id, rows);
  Statement ins(store,
                "INSERT OR REPLACE INTO run_kernel_counters (run_id, rank, phase, source, kernel, "
                "launch_id, section, metric, unit, value, text) VALUES "
                "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  for (const KernelCounterRow& r : rows) {
    ins.bind_all(run_id, r.rank, r.phase, r.source, r.kernel, r.launch_id, r.section, r.metric,
                 r.unit, r.value, r.text)
        .run();
  }
  tx.commit();
}

std::vector<KernelCounterRow> load_kernel_counters(Db& store, std::int64_t run_id) {
  Statement q(store,
              "SELECT rank, phase, source, kernel, launch_id, section, metric, unit, value, text "
              "FROM run_kernel_counters WHERE run_id = ?1 ORDER BY rank, source, kernel, "
              "launch_id");
  q.bind(1, run_id);
  std::vector<KernelCounterRow> out;
  while (q.step()) {
    KernelCounterRow& r = out.emplace_back();
    q.columns(r.rank, r.phase, r.source, r.kernel, r.launch_id, r.section, r.metric, r.unit,
              r.value, r.text);
  }
  return out;
}

std::map<int, std::map<std::string, std::string>> load_rank_provenance(Db& store,
                                                                       std::int64_t run_id) {
  Statement q(store, "SELECT rank, key, value FROM provenance WHERE run_id = ?1 AND rank >= 0");
  q.bind(1, run_id);
  std::map<int, std::map<std::string, std::string>> out;
  while (q.step()) out[static_cast<int>(q.column_int(0))][q.column_text(1)] = q.column_text(2);
  return out;
}

void put_telemetry(Db& store, std::int64_t run_id, const std::vector<TelemetryRow>& rows) {
  Transaction tx(store);
  clear_sources(store, "run_telemetry", run_id, rows);
  Statement ins(store,
                "INSERT OR REPLACE INTO run_telemetry (run_id, rank, gpu, host, source, field, "
                "time_ns, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  for (const TelemetryRow& r : rows) {
    ins.bind_all(run_id, r.rank, r.gpu, r.host, r.source, r.field, r.time_ns, r.value).run();
  }
  tx.commit();
}

std::vector<TelemetryRow> load_telemetry(Db& store, std::int64_t run_id) {
  Statement q(store,
              "SELECT rank, gpu, host, source, field, time_ns, value FROM run_telemetry WHERE "
              "run_id = ?1 ORDER BY rank, field, time_ns");
  q.bind(1, run_id);
  std::vector<TelemetryRow> out;
  while (q.step()) {
    TelemetryRow& r = out.emplace_back();
    q.columns(r.rank, r.gpu, r.host, r.source, r.field, r.time_ns, r.value);
  }
  return out;
}

}  // namespace culprit::storage
