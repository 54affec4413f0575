#include <charconv>
#include <filesystem>
#include <set>

#include "culprit/analysis/attach.hpp"
#include "culprit/analysis/attribution.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/ncu.hpp"
#include "culprit/storage/evidence.hpp"
#include "culprit/storage/run_data.hpp"

namespace culprit::analysis {

AttachTarget parse_attach_target(const std::string& text) {
  AttachTarget t;
  const auto colon = text.find(':');
  const std::string run = text.substr(0, colon);
  auto whole = [&](const std::string& s, auto& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 0;
  };
  std::int64_t id = 0;
  if (run.empty() || !whole(run, id) || id == 0) {
    throw UsageError("--attach " + text +
                     ": expected RUN or RUN:RANK (a run id from `culprit "
                     "runs`, e.g. 12 or 12:3)");
  }
  t.run_id = id;
  if (colon != std::string::npos) {
    int rank = 0;
    if (!whole(text.substr(colon + 1), rank)) {
      throw UsageError("--attach " + text + ": the rank after ':' must be a whole number");
    }
    t.rank = rank;
  }
  return t;
}

int blamed_rank(storage::Db& store, std::int64_t run_id) {
  const RunAttribution a = attribute_run(storage::load_run(store, run_id));
  if (!a.culprit.found) {
    throw UsageError("run " + std::to_string(run_id) +
                     " blames no rank: name the rank the counters belong to with --attach " +
                     std::to_string(run_id) + ":RANK");
  }
  return a.culprit.rank;
}

std::string matching_phase(const std::string& kernel, const std::vector<std::string>& phases) {
  std::string base = kernel.substr(0, kernel.find('('));
  base = base.substr(0, base.find('<'));
  const auto colons = base.rfind("::");
  if (colons != std::string::npos) base = base.substr(colons + 2);
  const auto space = base.rfind(' ');
  if (space != std::string::npos) base = base.substr(space + 1);
  if (base.empty()) return "";
  for (const std::string& p : phases) {
    if (!p.empty() &&
        (base == p || base.find(p) != std::string::npos || p.find(base) != std::string::npos)) {
      return p;
    }
  }
  return "";
}

namespace {

std::vector<storage::KernelCounterRow> rows_of(const importers::ncu::Report& r, int rank,
                                               const std::string& phase,
                                               const std::vector<std::string>& phases,
                                               AttachSummary& s) {
  std::vector<storage::KernelCounterRow> rows;
  const std::string source = std::filesystem::path(r.file).filename().string();
  std::set<std::string> kernels;
  for (const importers::ncu::Launch& l : r.launches) {
    const std::string p = phase.empty() ? matching_phase(l.kernel, phases) : phase;
    if (kernels.insert(l.kernel).second) s.kernel_phases.emplace_back(l.kernel, p);
    ++s.launches;
    for (const importers::ncu::Metric& m : l.metrics) {
      storage::KernelCounterRow& row = rows.emplace_back();
      row.rank = rank;
      row.phase = p;
      row.source = source;
      row.kernel = l.kernel;
      row.launch_id = l.id;
      row.section = m.section;
      row.metric = m.name;
      row.unit = m.unit;
      if (m.value == m.value) row.value = m.value;  // NaN: not a number
      row.text = m.text;
    }
  }
  s.metrics += static_cast<std::int64_t>(rows.size());
  return rows;
}

}  // namespace

AttachSummary attach_ncu(storage::Db& store, const std::vector<std::string>& files,
                         const AttachTarget& target, const std::string& phase) {
  std::vector<importers::ncu::Report> reports;
  for (const std::string& f : files) reports.push_back(importers::ncu::read_ncu(f));
  if (!storage::run_exists(store, target.run_id)) {
    throw UsageError("run " + std::to_string(target.run_id) + " is not in " + store.path() +
                     ": list the runs with `culprit runs`");
  }
  const storage::RunData run = storage::load_run(store, target.run_id);
  AttachSummary s;
  s.run_id = target.run_id;
  s.rank = target.rank ? *target.rank : blamed_rank(store, target.run_id);
  if (run.position_of(s.rank) < 0) {  // the job's rank id (a partial import's 2 and 3)
    throw UsageError("run " + std::to_string(s.run_id) + " has ranks " + run.rank_list() +
                     ", not " + std::to_string(s.rank));
  }
  s.phase = phase;
  std::vector<storage::KernelCounterRow> rows;
  for (const importers::ncu::Report& r : reports) {
    const auto part = rows_of(r, s.rank, phase, run.names, s);
    rows.insert(rows.end(), part.begin(), part.end());
    s.warnings.insert(s.warnings.end(), r.warnings.begin(), r.warnings.end());
  }
  s.kernels = static_cast<std::int64_t>(s.kernel_phases.size());
  storage::put_kernel_counters(store, s.run_id, rows);
  return s;
}

}  // namespace culprit::analysis
