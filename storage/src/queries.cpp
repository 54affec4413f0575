#include "culprit/storage/queries.hpp"

#include <string_view>

#include "culprit/errors.hpp"

namespace culprit::storage {
namespace {

// How `culprit runs` and `culprit export` name a superseded configuration (labels repeat).
std::string display_label(std::string label, bool superseded, std::string_view config_hash) {
  if (superseded) label += " [superseded " + std::string(config_hash.substr(0, 12)) + "]";
  return label;
}

std::vector<double> medians(Statement& stmt) {
  std::vector<double> out;
  while (stmt.step()) out.push_back(stmt.column_double(0));
  return out;
}

// A run's place as listings name it: experiment, configuration (display label), repetition.
// Columns 1-5 of a listing's rows (kRunPlaceColumns); column 0 is the caller's.
constexpr const char* kRunPlaceColumns =
    "e.name, c.label, c.superseded, c.config_hash, r.repetition";
constexpr const char* kRunJoins =
    " JOIN configurations c ON c.id = r.config_id JOIN experiments e ON e.id = r.experiment_id ";

// Fills the place fields (experiment, config, repetition) of a listing row from columns 1-5.
template <class Row>
void read_run_place(const Statement& stmt, Row& row) {
  row.experiment = stmt.column_text(1);
  row.config = display_label(stmt.column_text(2), stmt.column_int(3) != 0, stmt.column_view(4));
  row.repetition = static_cast<int>(stmt.column_int(5));
}

RunSummary read_summary(const Statement& stmt) {
  RunSummary r;
  r.id = stmt.column_int(0);
  read_run_place(stmt, r);
  stmt.columns_at(6, r.position, r.attempt, r.status, r.median_ms, r.started_at, r.error);
  return r;
}

const std::string kSummarySelect = std::string("SELECT r.id, ") + kRunPlaceColumns +
                                   ", r.position, r.attempt, r.status, r.median_ms, "
                                   "coalesce(r.started_at, ''), r.error FROM runs r" +
                                   kRunJoins;

}  // namespace

ExperimentRuns load_experiment_runs(Db& store, const std::string& name) {
  std::optional<ExperimentRecord> found =
      name.empty() ? latest_experiment(store) : find_experiment(store, name);
  if (!found) {
    throw UsageError(name.empty() ? "the store " + store.path() +
                                        " holds no experiment yet: run one with `culprit run "
                                        "MANIFEST`"
                                  : "the store " + store.path() + " has no experiment '" + name +
                                        "': `culprit runs` lists what it holds");
  }
  ExperimentRuns result;
  result.experiment = std::move(*found);
  for (ConfigurationRecord& c : list_configurations(store, result.experiment.id)) {
    ConfigurationRuns entry;
    entry.ok_runs = ok_runs(store, c.id);
    entry.config = std::move(c);
    result.configs.push_back(std::move(entry));
  }
  return result;
}

std::vector<OkRun> ok_runs(Db& store, std::int64_t config_id) {
  Statement stmt(store,
                 "SELECT id, repetition, position, median_ms, binding FROM runs "
                 "WHERE config_id = ?1 AND status = 'ok' AND median_ms IS NOT NULL "
                 "ORDER BY position, id");
  stmt.bind(1, config_id);
  std::vector<OkRun> runs;
  while (stmt.step()) {
    runs.push_back({stmt.column_int(0), static_cast<int>(stmt.column_int(1)),
                    static_cast<int>(stmt.column_int(2)), stmt.column_double(3),
                    stmt.column_text(4)});
  }
  return runs;
}

std::vector<double> ok_medians_by_hash(Db& store, std::int64_t experiment_id,
                                       const std::string& config_hash) {
  Statement stmt(store,
                 "SELECT r.median_ms FROM runs r JOIN configurations c ON c.id = r.config_id "
                 "WHERE c.experiment_id = ?1 AND c.config_hash = ?2 AND r.status = 'ok' AND "
                 "r.median_ms IS NOT NULL ORDER BY r.repetition");
  stmt.bind(1, experiment_id).bind(2, config_hash);
  return medians(stmt);
}

std::vector<double> sibling_ok_medians(Db& store, std::int64_t run_id) {
  Statement stmt(store,
                 "SELECT s.median_ms FROM runs r JOIN runs s ON s.config_id = r.config_id "
                 "WHERE r.id = ?1 AND s.status = 'ok' AND s.median_ms IS NOT NULL ORDER BY s.id");
  stmt.bind(1, run_id);
  return medians(stmt);
}

std::optional<std::string> resolved_json_of_run(Db& store, std::int64_t run_id) {
  Statement stmt(store,
                 "SELECT c.resolved_json FROM runs r JOIN configurations c ON c.id = r.config_id "
                 "WHERE r.id = ?1");
  stmt.bind(1, run_id);
  if (!stmt.step()) return std::nullopt;
  return stmt.column_text(0);
}

std::set<std::string> ok_run_provenance(Db& store, std::int64_t config_id, const std::string& key,
                                        bool job_only) {
  Statement stmt(store,
                 "SELECT DISTINCT p.value FROM provenance p JOIN runs r ON r.id = p.run_id "
                 "WHERE r.config_id = ?1 AND r.status = 'ok' AND p.key = ?2 AND "
                 "(?3 = 0 OR p.rank = -1)");
  stmt.bind(1, config_id).bind(2, key).bind(3, job_only ? 1 : 0);
  std::set<std::string> values;
  while (stmt.step()) values.insert(stmt.column_text(0));
  return values;
}

std::optional<RunSummary> find_ok_run_by_meta(Db& store, std::int64_t experiment_id,
                                              const std::string& key, const std::string& value) {
  Statement stmt(store, kSummarySelect +
                            "WHERE r.experiment_id = ?1 AND r.status = 'ok' AND EXISTS (SELECT 1 "
                            "FROM run_meta m WHERE m.run_id = r.id AND m.key = ?2 AND m.value = "
                            "?3) ORDER BY r.id LIMIT 1");
  stmt.bind(1, experiment_id).bind(2, key).bind(3, value);
  if (!stmt.step()) return std::nullopt;
  return read_summary(stmt);
}

std::optional<RunSummary> find_run(Db& store, std::int64_t run_id) {
  Statement stmt(store, std::string(kSummarySelect) + "WHERE r.id = ?1");
  stmt.bind(1, run_id);
  if (!stmt.step()) return std::nullopt;
  return read_summary(stmt);
}

std::int64_t count_runs(Db& store) {
  return store.query_int("SELECT count(*) FROM runs").value_or(0);
}

PlannedRunCounts count_planned_runs(Db& store, const std::string& experiment, int repetitions) {
  Statement stmt(store,
                 "SELECT coalesce(sum(r.status = 'ok'), 0), coalesce(sum(r.status IN "
                 "('ok', 'failed', 'timeout', 'crashed')), 0) FROM runs r JOIN experiments "
                 "e ON e.id = r.experiment_id WHERE e.name = ?1 AND r.repetition < ?2");
  stmt.bind(1, experiment).bind(2, repetitions);
  PlannedRunCounts counts;
  if (stmt.step()) {
    counts.ok = static_cast<int>(stmt.column_int(0));
    counts.finished = static_cast<int>(stmt.column_int(1));
  }
  return counts;
}

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
                 kSummarySelect + "WHERE ?1 = '' OR e.name = ?1 ORDER BY e.id, r.position, r.id");
  stmt.bind(1, experiment);
  std::vector<RunSummary> runs;
  while (stmt.step()) runs.push_back(read_summary(stmt));
  return runs;
}

std::vector<StepExport> export_steps(Db& store, const std::string& experiment) {
  Statement stmt(store, std::string("SELECT s.run_id, ") + kRunPlaceColumns +
                            ", s.step, s.time_ms, s.last_rank, s.warmup FROM steps s JOIN runs r "
                            "ON r.id = s.run_id" +
                            kRunJoins +
                            "WHERE ?1 = '' OR e.name = ?1 ORDER BY e.id, r.position, s.run_id, "
                            "s.step");
  stmt.bind(1, experiment);
  std::vector<StepExport> rows;
  while (stmt.step()) {
    StepExport s;
    s.run_id = stmt.column_int(0);
    read_run_place(stmt, s);
    stmt.columns_at(6, s.step, s.time_ms, s.last_rank, s.warmup);
    rows.push_back(std::move(s));
  }
  return rows;
}

}  // namespace culprit::storage
