#include "culprit/storage/experiment_settings.hpp"

#include <sstream>

namespace culprit::storage {
namespace {

constexpr const char* kColumns =
    "alpha, margin, repetitions, max_repetitions, block, looks, reduced_baseline_run, "
    "reduced_candidate_run, reduced_baseline_median_ms, reduced_candidate_median_ms, "
    "reduced_delta_ms, reduced_shift_ms, reduced_shift_runs, reduced_db, reduced_excess_steps, "
    "reduced_step_excess_ms, reduced_from_lost, sampling";

// The two lists of [reduced_from] are stored as comma-separated integers ("3,5").
std::string int_list(const std::vector<int>& values) {
  std::string text;
  for (int v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> values;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stoi(item));
  return values;
}

ReducedFromRecord read_reduced_from(const Statement& stmt) {
  ReducedFromRecord r;
  std::string shift_runs;
  std::string excess_steps;
  stmt.columns_at(6, r.baseline_run, r.candidate_run, r.baseline_median_ms, r.candidate_median_ms,
                  r.delta_ms, r.shift_ms, shift_runs, r.db, excess_steps, r.step_excess_ms);
  r.shift_runs = parse_int_list(shift_runs);
  r.excess_steps = parse_int_list(excess_steps);
  return r;
}

}  // namespace

void put_experiment_settings(Db& store, std::int64_t experiment_id,
                             const ExperimentSettingsRecord& s) {
  Statement stmt(store, std::string("INSERT OR REPLACE INTO experiment_settings (experiment_id, ") +
                            kColumns +
                            ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                            "?14, ?15, ?16, ?17, ?18, ?19)");
  stmt.purpose("storing experiment " + std::to_string(experiment_id) + "'s settings");
  stmt.bind_all(experiment_id, s.alpha, s.margin, s.repetitions, s.max_repetitions, s.block,
                s.looks);
  if (const auto& r = s.reduced_from) {  // else NULL: not a reduced experiment
    stmt.bind(8, r->baseline_run).bind(9, r->candidate_run).bind(10, r->baseline_median_ms);
    stmt.bind(11, r->candidate_median_ms).bind(12, r->delta_ms).bind(13, r->shift_ms);
    stmt.bind(14, int_list(r->shift_runs)).bind(15, r->db).bind(16, int_list(r->excess_steps));
    stmt.bind(17, r->step_excess_ms);
  }
  stmt.bind(18, static_cast<std::int64_t>(s.reduced_from_lost ? 1 : 0));
  stmt.bind(19, s.sampling);
  stmt.run();
}

std::optional<ExperimentSettingsRecord> experiment_settings(Db& store, std::int64_t experiment_id,
                                                            const std::string& schema) {
  Statement stmt(store, std::string("SELECT ") + kColumns + " FROM " + schema +
                            ".experiment_settings WHERE experiment_id = ?1");
  stmt.bind(1, experiment_id);
  if (!stmt.step()) return std::nullopt;
  ExperimentSettingsRecord s;
  stmt.columns(s.alpha, s.margin, s.repetitions, s.max_repetitions, s.block, s.looks);
  if (!stmt.column_is_null(6)) s.reduced_from = read_reduced_from(stmt);
  stmt.columns_at(16, s.reduced_from_lost, s.sampling);
  return s;
}

}  // namespace culprit::storage
