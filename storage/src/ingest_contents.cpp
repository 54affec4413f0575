// copy_run without a run file: the contents a source built in memory (culprit import) land in
// the same store rows as their run file gives, with no file written and read back.
#include <stdexcept>

#include "culprit/storage/ingest.hpp"
#include "ingest_parts.hpp"
#include "runfile/meta_keys.hpp"
#include "runfile/packed.hpp"

namespace culprit::storage {

std::int64_t copy_run_contents(Db& store, const runfile::RunFileContents& contents,
                               std::int64_t run_id, IngestObserver* observer) {
  runfile::check_contents(contents, "run contents");
  clear_run_data(store, run_id);
  // As the run file holds them: meta.format_version first, then the meta in order (a key given
  // twice keeps its last value, INSERT OR REPLACE like the writer's).
  Statement meta(store, "INSERT OR REPLACE INTO run_meta (run_id, key, value) VALUES (?1, ?2, ?3)");
  meta.bind(1, run_id)
      .bind(2, runfile::meta::kFormatVersion)
      .bind(3, std::to_string(runfile::kFormatVersion));
  meta.run();
  for (const auto& [key, value] : contents.meta) {
    meta.bind(1, run_id).bind(2, key).bind(3, value);
    meta.run();
  }
  Statement echo(store, "INSERT INTO run_config_echo (run_id, json) VALUES (?1, ?2)");
  echo.bind(1, run_id).bind(2, contents.config_json).run();
  Statement provenance(
      store,
      "INSERT OR REPLACE INTO provenance (run_id, rank, key, value) VALUES (?1, ?2, ?3, ?4)");
  for (const runfile::ProvenanceEntry& p : contents.provenance) {
    provenance.bind(1, run_id).bind(2, p.rank).bind(3, p.key).bind(4, p.value);
    provenance.run();
  }
  Statement clocks(store,
                   "INSERT INTO clock_models (run_id, rank, host, ref_ns, offset_ns, drift_ppm, "
                   "uncertainty_ns, start_rtt_ns, end_rtt_ns, exchanges) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  for (const runfile::ClockModel& c : contents.clocks) {
    clocks.bind(1, run_id).bind(2, c.rank).bind(3, c.host).bind(4, c.ref_ns);
    clocks.bind(5, c.offset_ns).bind(6, c.drift_ppm).bind(7, c.uncertainty_ns);
    clocks.bind(8, c.start_rtt_ns).bind(9, c.end_rtt_ns).bind(10, c.exchanges);
    clocks.run();
  }
  if (observer != nullptr) {
    std::vector<ClockModel> models;
    models.reserve(contents.clocks.size());
    for (const runfile::ClockModel& c : contents.clocks) {
      models.push_back({.rank = c.rank,
                        .ref_ns = c.ref_ns,
                        .offset_ns = c.offset_ns,
                        .drift_ppm = c.drift_ppm,
                        .uncertainty_ns = c.uncertainty_ns});
    }
    observer->clock_models(models);
  }
  Statement names(store, "INSERT INTO run_event_names (run_id, id, name) VALUES (?1, ?2, ?3)");
  for (std::size_t i = 0; i < contents.names.size(); ++i) {
    names.bind(1, run_id).bind(2, static_cast<std::int64_t>(i)).bind(3, contents.names[i]);
    names.run();
  }
  return insert_packs(store, run_id, contents.events, observer);
}

}  // namespace culprit::storage
