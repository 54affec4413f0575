#include "culprit/storage/queries.hpp"

#include "culprit/errors.hpp"

namespace culprit::storage {

void check_experiment_exists(Db& store, const std::string& experiment) {
  if (experiment.empty()) return;
  Statement stmt(store, "SELECT name FROM experiments ORDER BY name");
  std::string names;
  bool found = false;
  while (stmt.step()) {
    const std::string name = stmt.column_text(0);
    found = found || name == experiment;
    names += (names.empty() ? "" : ", ") + name;
  }
  if (found) return;
  throw UsageError("no experiment '" + experiment + "' in " + store.path() + " (" +
                   (names.empty() ? std::string("it holds none yet") : "it holds: " + names) +
                   "): check the name given to --experiment");
}

std::vector<RunSummary> list_runs(Db& store, const std::string& experiment) {
  Statement stmt(store,
                 "SELECT r.id, e.name, c.label, r.repetition, r.position, r.attempt, r.status, "
                 "r.median_ms, coalesce(r.started_at, ''), r.error "
                 "FROM runs r JOIN configurations c ON c.id = r.config_id "
                 "JOIN experiments e ON e.id = r.experiment_id "
                 "WHERE ?1 = '' OR e.name = ?1 ORDER BY e.id, r.position, r.id");
  stmt.bind(1, experiment);
  std::vector<RunSummary> runs;
  while (stmt.step()) {
    RunSummary r;
    r.id = stmt.column_int(0);
    r.experiment = stmt.column_text(1);
    r.config = stmt.column_text(2);
    r.repetition = static_cast<int>(stmt.column_int(3));
    r.position = static_cast<int>(stmt.column_int(4));
    r.attempt = static_cast<int>(stmt.column_int(5));
    r.status = stmt.column_text(6);
    if (!stmt.column_is_null(7)) r.median_ms = stmt.column_double(7);
    r.started_at = stmt.column_text(8);
    r.error = stmt.column_text(9);
    runs.push_back(std::move(r));
  }
  return runs;
}

std::vector<StepExport> export_steps(Db& store, const std::string& experiment) {
  Statement stmt(store,
                 "SELECT s.run_id, e.name, c.label, r.repetition, s.step, s.time_ms, "
                 "s.last_rank, s.warmup FROM steps s JOIN runs r ON r.id = s.run_id "
                 "JOIN configurations c ON c.id = r.config_id "
                 "JOIN experiments e ON e.id = r.experiment_id "
                 "WHERE ?1 = '' OR e.name = ?1 ORDER BY e.id, r.position, s.run_id, s.step");
  stmt.bind(1, experiment);
  std::vector<StepExport> rows;
  while (stmt.step()) {
    StepExport s;
    s.run_id = stmt.column_int(0);
    s.experiment = stmt.column_text(1);
    s.config = stmt.column_text(2);
    s.repetition = static_cast<int>(stmt.column_int(3));
    s.step = static_cast<int>(stmt.column_int(4));
    s.time_ms = stmt.column_double(5);
    s.last_rank = static_cast<int>(stmt.column_int(6));
    s.warmup = stmt.column_int(7) != 0;
    rows.push_back(std::move(s));
  }
  return rows;
}

}  // namespace culprit::storage
