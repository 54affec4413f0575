#include "culprit/storage/run_data.hpp"
#include "runfile/meta_keys.hpp"
#include "runfile/provenance_keys.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "culprit/storage/ingest.hpp"
#include "runfile/packed.hpp"

namespace culprit::storage {
namespace {

constexpr const char* kEventSelect =
    "SELECT rank, step, microbatch, layer, seq, kind, name, begin_ns, end_ns, bytes, device, "
    "stream ";

std::string where(Db& db, std::int64_t run_id, const std::string& why);

// The columns of kEventSelect but kind and name (read_event_record's order), of a row of the run
// file `db`; a value that does not fit its field names the file.
Event read_event(Db& db, Statement& stmt) {
  runfile::EventRecord r;
  try {
    r = read_event_record(stmt);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where(db, 0, std::string("event row: ") + e.what()));
  }
  return {.begin_ns = r.begin_ns,
          .end_ns = r.end_ns,
          .bytes = r.bytes,
          .rank = r.rank,
          .step = r.step,
          .microbatch = r.microbatch,
          .layer = r.layer,
          .seq = r.seq};
}

// A run file of format 1: kind and name as text in every row of `events`.
void load_format1_events(Db& db, RunData& run, EventSelection selection) {
  // Kind and name are text here: read from the columns after kEventSelect's, not as its ids.
  Statement stmt(
      db,
      "SELECT rank, step, microbatch, layer, seq, 0, 0, begin_ns, end_ns, bytes, device, "
      "stream, kind, name FROM events" +
          std::string(selection == EventSelection::kStepsOnly ? " WHERE kind = 'step'" : ""));
  std::size_t last_name = 0;  // index into run.names of the previous row's name
  while (stmt.step()) {
    Event e = read_event(db, stmt);
    e.kind = runfile::parse_event_kind(stmt.column_view(12));
    // A run has a few distinct names: the last one matches most rows, else a short scan.
    const std::string_view name = stmt.column_view(13);
    if (last_name >= run.names.size() || run.names[last_name] != name) {
      last_name = 0;
      while (last_name < run.names.size() && run.names[last_name] != name) ++last_name;
      if (last_name == run.names.size()) run.names.emplace_back(name);
    }
    e.name = static_cast<std::uint16_t>(last_name);
    run.events.push_back(e);
  }
}

// (step, rank, begin_ns), keeping the stored order among equal keys.
void sort_events(RunData& run) {
  std::stable_sort(run.events.begin(), run.events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.step, a.rank, a.begin_ns) < std::tie(b.step, b.rank, b.begin_ns);
  });
}

std::string where(Db& db, std::int64_t run_id, const std::string& why) {
  return (run_id == 0 ? "run file " + db.path()
                      : "run " + std::to_string(run_id) + " in " + db.path()) +
         ": " + why;
}

// The interned names: event_names of a run file, run_event_names of the store.
void load_names(Db& db, const std::string& filter, std::int64_t run_id, RunData& run) {
  Statement stmt(db, filter.empty() ? std::string("SELECT id, name FROM event_names")
                                    : "SELECT id, name FROM run_event_names " + filter);
  if (!filter.empty()) stmt.bind(1, run_id);
  while (stmt.step()) {
    const std::int64_t id = stmt.column_int(0);
    if (id < 0 || id > 0xffff)
      throw std::invalid_argument(
          where(db, run_id, "event name id " + std::to_string(id) + " is out of range"));
    const auto index = static_cast<std::size_t>(id);
    if (index >= run.names.size()) run.names.resize(index + 1);
    run.names[index] = stmt.column_text(1);
  }
}

void check_ids(Db& db, std::int64_t run_id, std::int64_t kind, std::int64_t name,
               const RunData& run) {
  if (kind < 0 || kind >= runfile::kEventKindCount) {
    throw std::invalid_argument(
        where(db, run_id, "event kind " + std::to_string(kind) + " is not one of event_kinds"));
  }
  if (name < 0 || static_cast<std::size_t>(name) >= run.names.size()) {
    throw std::invalid_argument(
        where(db, run_id, "event name id " + std::to_string(name) + " is not in the names table"));
  }
}

// The rows of a run file's event_rows (formats 2 and 3 as the Python module writes them): kind
// and name as integers.
void load_event_rows(Db& db, EventSelection selection, RunData& run) {
  const std::string kind_filter =
      selection == EventSelection::kStepsOnly
          ? " WHERE kind = " + std::to_string(static_cast<int>(EventKind::kStep))
          : "";
  if (selection == EventSelection::kAll) {
    if (auto count = db.query_int("SELECT count(*) FROM event_rows")) {
      run.events.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, *count)));
    }
  }
  Statement stmt(db, kEventSelect + std::string("FROM event_rows") + kind_filter);
  while (stmt.step()) {
    Event e = read_event(db, stmt);
    const std::int64_t kind = stmt.column_int(5);
    const std::int64_t name = stmt.column_int(6);
    check_ids(db, 0, kind, name, run);
    e.kind = static_cast<EventKind>(kind);
    e.name = static_cast<std::uint16_t>(name);
    run.events.push_back(e);
  }
}

// One pack's events (kept: all, or only the step events) in pack order.
void decode_pack(Db& db, std::int64_t run_id, std::int32_t rank, const runfile::PackReader& pack,
                 EventSelection selection, const RunData& run, std::vector<std::int64_t>& values,
                 std::vector<Event>& out) {
  const std::size_t n = pack.count();
  values.resize(n);
  out.assign(n, Event{});
  auto each = [&](int column, auto&& set) {
    pack.column(column, values.data());
    for (std::size_t i = 0; i < n; ++i) set(out[i], values[i]);
  };
  each(runfile::kPackStep, [](Event& e, std::int64_t v) { e.step = runfile::pack_id(v, "step"); });
  each(runfile::kPackMicrobatch,
       [](Event& e, std::int64_t v) { e.microbatch = runfile::pack_id(v, "microbatch"); });
  each(runfile::kPackLayer,
       [](Event& e, std::int64_t v) { e.layer = runfile::pack_id(v, "layer"); });
  each(runfile::kPackSeq, [](Event& e, std::int64_t v) { e.seq = runfile::pack_id(v, "seq"); });
  std::vector<std::int64_t> names(n);
  pack.column(runfile::kPackKind, values.data());
  pack.column(runfile::kPackName, names.data());
  for (std::size_t i = 0; i < n; ++i) {
    check_ids(db, run_id, values[i], names[i], run);
    out[i].rank = rank;
    out[i].kind = static_cast<EventKind>(values[i]);
    out[i].name = static_cast<std::uint16_t>(names[i]);
  }
  each(runfile::kPackBegin, [](Event& e, std::int64_t v) { e.begin_ns = v; });
  each(runfile::kPackDuration, [](Event& e, std::int64_t v) {
    e.end_ns = static_cast<std::int64_t>(static_cast<std::uint64_t>(e.begin_ns) +
                                         static_cast<std::uint64_t>(v));
  });
  each(runfile::kPackBytes, [](Event& e, std::int64_t v) { e.bytes = v; });
  if (selection == EventSelection::kStepsOnly) {
    std::erase_if(out, [](const Event& e) { return e.kind != EventKind::kStep; });
  }
  auto before = [](const Event& a, const Event& b) {
    return a.step != b.step ? a.step < b.step : a.begin_ns < b.begin_ns;
  };
  if (!std::is_sorted(out.begin(), out.end(), before)) {
    std::stable_sort(out.begin(), out.end(), before);
  }
}

// Calls f(rank, pack) for each pack of a run (store: run_event_packs of run_id; run file:
// event_packs) in rank order, read in place from SQLite's page: no pack is copied, so a run's
// packs are never in memory together (2 GB at 131,072 ranks x 50 steps).
template <class F>
void each_pack(Db& db, bool store, std::int64_t run_id, F&& f) {
  Statement stmt(db, store ? "SELECT rank, events, data FROM run_event_packs WHERE run_id = ?1 "
                             "ORDER BY rank, id"
                           : "SELECT rank, events, data FROM event_packs ORDER BY rank, rowid");
  if (store) stmt.bind(1, run_id);
  while (stmt.step()) {
    const auto rank = static_cast<std::int32_t>(stmt.column_int(0));
    if (rank < 0) {
      throw std::invalid_argument(where(db, run_id, "event pack of rank " + std::to_string(rank)));
    }
    const auto blob = stmt.column_blob(2);
    try {
      const runfile::PackReader pack(blob.data(), blob.size(), stmt.column_int(1));
      f(rank, pack);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      if (what.rfind("run ", 0) == 0) throw;  // decode_pack's, the run already named
      throw std::invalid_argument(
          where(db, run_id, "event pack of rank " + std::to_string(rank) + ": " + what));
    }
  }
}

// The packs' events into run.events in (step, rank, begin_ns) order without a sort: each pack
// is one rank's events in (step, begin_ns) order, the packs come in rank order, so counting
// the events per step (a first pass over the packs) places every one in the second (a
// counting sort by step, stable).
void load_packs(Db& db, bool store, std::int64_t run_id, EventSelection selection, RunData& run) {
  std::vector<std::int64_t> values;
  std::vector<Event> decoded;
  if (run.events.empty()) {
    // Calls `count` with the step of every event kept, pack by pack.
    std::vector<std::int64_t> steps;
    std::vector<std::int64_t> kinds;
    auto each_step = [&](auto&& count) {
      each_pack(db, store, run_id, [&](std::int32_t, const runfile::PackReader& pack) {
        steps.resize(pack.count());
        kinds.resize(pack.count());
        pack.column(runfile::kPackStep, steps.data());
        pack.column(runfile::kPackKind, kinds.data());
        for (std::size_t i = 0; i < pack.count(); ++i) {
          if (selection == EventSelection::kAll ||
              kinds[i] == static_cast<std::int64_t>(EventKind::kStep))
            count(runfile::pack_id(steps[i], "step"));
        }
      });
    };
    std::int64_t lo = 0;
    std::int64_t hi = -1;
    std::size_t total = 0;
    each_step([&](std::int64_t step) {
      if (total == 0 || step < lo) lo = step;
      if (total == 0 || step > hi) hi = step;
      ++total;
    });
    // A counting array as long as the steps span; a sparse numbering sorts instead (below).
    if (total > 0 && static_cast<std::uint64_t>(hi - lo) <= 4 * total + 4096) {
      std::vector<std::size_t> next(static_cast<std::size_t>(hi - lo) + 2, 0);
      each_step([&](std::int64_t step) { ++next[static_cast<std::size_t>(step - lo) + 1]; });
      std::partial_sum(next.begin(), next.end(), next.begin());
      run.events.resize(total);
      // A rank's later pack must continue its earlier one in (step, begin_ns) order (the
      // writer's packs do); otherwise the placed events are sorted after all.
      bool ordered = true;
      bool any = false;
      Event previous;
      each_pack(db, store, run_id, [&](std::int32_t rank, const runfile::PackReader& pack) {
        decode_pack(db, run_id, rank, pack, selection, run, values, decoded);
        if (any && !decoded.empty() && previous.rank == rank &&
            std::tie(decoded.front().step, decoded.front().begin_ns) <
                std::tie(previous.step, previous.begin_ns))
          ordered = false;
        if (!decoded.empty()) {
          previous = decoded.back();
          any = true;
        }
        for (const Event& e : decoded)
          run.events[next[static_cast<std::size_t>(e.step - lo)]++] = e;
      });
      if (!ordered) sort_events(run);
      return;
    }
  }
  each_pack(db, store, run_id, [&](std::int32_t rank, const runfile::PackReader& pack) {
    decode_pack(db, run_id, rank, pack, selection, run, values, decoded);
    run.events.insert(run.events.end(), decoded.begin(), decoded.end());
  });
  sort_events(run);
}

// Each rank's per-step provenance list `key` ("step:ns,..."; docs/schema.md, the
// sched.step_* keys), [position][step]. A malformed list is left out (the check it feeds then
// does not run), never fatal.
std::vector<std::vector<double>> load_step_waits(Db& db, const std::string& filter,
                                                 std::int64_t run_id, const RunData& run,
                                                 const char* key) {
  const int ranks = run.ranks;
  std::vector<std::vector<double>> wait;
  Statement stmt(db, "SELECT rank, value FROM provenance " +
                         (filter.empty() ? std::string("WHERE") : filter + " AND") +
                         (filter.empty() ? " key = ?1" : " key = ?2"));
  if (!filter.empty()) stmt.bind(1, run_id);
  stmt.bind(filter.empty() ? 1 : 2, key);
  while (stmt.step()) {
    const std::int64_t id = stmt.column_int(0);
    if (id < 0 || id > std::numeric_limits<int>::max()) continue;
    const int rank = run.position_of(static_cast<int>(id));
    if (rank < 0) continue;
    std::vector<double> steps;
    const std::string text = stmt.column_text(1);
    const char* p = text.data();
    const char* const end = text.data() + text.size();
    bool ok = true;
    while (ok && p < end) {
      int step = 0;
      long long ns = 0;
      auto r = std::from_chars(p, end, step);
      ok = r.ec == std::errc() && r.ptr < end && *r.ptr == ':' && step >= 0 && step < 1000000;
      if (!ok) break;
      r = std::from_chars(r.ptr + 1, end, ns);
      ok = r.ec == std::errc() && ns >= 0 && (r.ptr == end || *r.ptr == ',');
      if (!ok) break;
      if (static_cast<std::size_t>(step) >= steps.size())
        steps.resize(static_cast<std::size_t>(step) + 1, std::nan(""));
      steps[static_cast<std::size_t>(step)] = static_cast<double>(ns);
      p = r.ptr == end ? end : r.ptr + 1;
    }
    if (!ok) continue;
    if (wait.empty()) wait.resize(static_cast<std::size_t>(ranks));
    wait[static_cast<std::size_t>(rank)] = std::move(steps);
  }
  return wait;
}

// The job's rank ids when they are not the positions 0..ranks-1 (a partial import keeps the
// job's ids: ranks 2 and 3 of 4): run.rank_ids, and every event and clock model renumbered to
// its position. Ids all below the rank count are positions already (a rank may have recorded
// nothing), as every writer but a partial import gives.
void index_ranks(RunData& run, std::int32_t max_event_rank) {
  std::int32_t top = max_event_rank;
  for (const ClockModel& c : run.clocks) top = std::max(top, c.rank);
  if (top < run.ranks) return;
  std::set<std::int32_t> ids;
  for (const ClockModel& c : run.clocks) ids.insert(c.rank);
  for (const Event& e : run.events) ids.insert(e.rank);
  std::erase_if(ids, [](std::int32_t id) { return id < 0; });
  run.rank_ids.assign(ids.begin(), ids.end());
  run.ranks = static_cast<int>(run.rank_ids.size());
  for (Event& e : run.events) e.rank = run.position_of(e.rank);
  for (ClockModel& c : run.clocks) c.rank = run.position_of(c.rank);
}

// meta.ranks and meta.warmup_steps as whole numbers >= 0; `where` names the run ("...: ").
RunCounts run_counts(const std::map<std::string, std::string>& meta, int ranks_fallback,
                     const std::string& where) {
  auto meta_int = [&](const char* key, int fallback) {
    auto it = meta.find(key);
    if (it == meta.end()) return fallback;
    const std::string& text = it->second;
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0) {
      throw std::invalid_argument(
          where + "meta." + key + " = '" + text +
          "' is not a whole number >= 0: the application that wrote the run file must record "
          "it as one (or leave it out so that the manifest's experiment.warmup_steps decides)");
    }
    return value;
  };
  return {meta_int(runfile::meta::kRanks, ranks_fallback),
          meta_int(runfile::meta::kWarmupSteps, 0)};
}

// `filter` is "" for a run file, or "WHERE run_id = ?1" for the store.
RunData load(Db& db, const std::string& filter, std::int64_t run_id, EventSelection selection) {
  RunData run;
  run.run_id = run_id;
  auto bind = [&](Statement& stmt) {
    if (!filter.empty()) stmt.bind(1, run_id);
  };
  {
    Statement stmt(db, "SELECT key, value FROM " +
                           std::string(filter.empty() ? "meta" : "run_meta") + " " + filter);
    bind(stmt);
    while (stmt.step()) run.meta[stmt.column_text(0)] = stmt.column_text(1);
  }
  {
    Statement stmt(db,
                   "SELECT rank, ref_ns, offset_ns, drift_ppm, uncertainty_ns FROM clock_models " +
                       filter + " ORDER BY rank");
    bind(stmt);
    while (stmt.step()) {
      ClockModel c;
      c.rank = static_cast<std::int32_t>(stmt.column_int(0));
      c.ref_ns = stmt.column_int(1);
      c.offset_ns = stmt.column_double(2);
      c.drift_ppm = stmt.column_double(3);
      c.uncertainty_ns = stmt.column_double(4);
      run.clocks.push_back(c);
    }
  }
  const bool store = !filter.empty();
  const std::string format = store || !run.meta.count(runfile::meta::kFormatVersion)
                                 ? std::string()
                                 : run.meta[runfile::meta::kFormatVersion];
  if (format == "1") {
    load_format1_events(db, run, selection);
    sort_events(run);
  } else {
    load_names(db, filter, run_id, run);
    // Rows: a run file of format 2, or of format 3 written by the Python module.
    if (!store) load_event_rows(db, selection, run);
    if (store || format != "2") {
      load_packs(db, store, run_id, selection, run);
    } else {
      sort_events(run);
    }
  }
  int max_rank = -1;
  for (const Event& e : run.events) max_rank = std::max(max_rank, e.rank);
  const RunCounts counts = run_counts(run.meta, max_rank + 1, where(db, run_id, ""));
  run.ranks = counts.ranks;
  run.warmup_steps = counts.warmup_steps;
  index_ranks(run, max_rank);
  // Index clocks by rank; a rank without a model is taken as already on rank 0's clock.
  std::vector<ClockModel> by_rank(static_cast<std::size_t>(std::max(run.ranks, 0)));
  for (std::size_t r = 0; r < by_rank.size(); ++r) by_rank[r].rank = static_cast<std::int32_t>(r);
  for (const ClockModel& c : run.clocks) {
    if (c.rank >= 0 && c.rank < run.ranks) by_rank[static_cast<std::size_t>(c.rank)] = c;
  }
  run.clocks = std::move(by_rank);
  run.step_cpu_wait_ns = load_step_waits(db, filter, run_id, run, runfile::provenance::kStepWaitNs);
  run.step_collective_wait_ns =
      load_step_waits(db, filter, run_id, run, runfile::provenance::kStepCollectiveWaitNs);
  return run;
}

}  // namespace

int RunData::name_index(const std::string& name) const {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

int RunData::rank_id(int position) const {
  if (position < 0 || rank_ids.empty()) return position;
  const auto p = static_cast<std::size_t>(position);
  return p < rank_ids.size() ? rank_ids[p] : position;
}

int RunData::position_of(int id) const {
  if (rank_ids.empty()) return id >= 0 && id < ranks ? id : -1;
  const auto it = std::lower_bound(rank_ids.begin(), rank_ids.end(), id);
  return it != rank_ids.end() && *it == id ? static_cast<int>(it - rank_ids.begin()) : -1;
}

std::string RunData::rank_list() const {
  if (rank_ids.empty()) return ranks > 1 ? "0.." + std::to_string(ranks - 1) : "0";
  std::string out;
  for (std::int32_t id : rank_ids) out += (out.empty() ? "" : ", ") + std::to_string(id);
  return out;
}

RunCounts load_run_counts(Db& store, std::int64_t run_id, int ranks_fallback) {
  std::map<std::string, std::string> meta;
  Statement stmt(store, "SELECT key, value FROM run_meta WHERE run_id = ?1 AND key IN (?2, ?3)");
  stmt.bind_all(run_id, runfile::meta::kRanks, runfile::meta::kWarmupSteps);
  while (stmt.step()) meta[stmt.column_text(0)] = stmt.column_text(1);
  return run_counts(meta, ranks_fallback, where(store, run_id, ""));
}

RunData load_run(Db& store, std::int64_t run_id, EventSelection selection) {
  auto exists = Statement(store, "SELECT 1 FROM runs WHERE id = ?1");
  exists.bind(1, run_id);
  if (!exists.step()) {
    throw std::invalid_argument("run " + std::to_string(run_id) + " is not in " + store.path() +
                                ": list runs with `culprit runs`");
  }
  return load(store, "WHERE run_id = ?1", run_id, selection);
}

std::string load_run_config_echo(Db& store, std::int64_t run_id) {
  Statement stmt(store, "SELECT json FROM run_config_echo WHERE run_id = ?1");
  stmt.bind(1, run_id);
  return stmt.step() ? stmt.column_text(0) : std::string();
}

RunData load_run_file(const std::string& path, EventSelection selection) {
  if (!std::filesystem::exists(path))
    throw std::invalid_argument("run file " + path + " not found");
  try {
    Db db(path, Db::Mode::kReadOnly);
    return load(db, "", 0, selection);
  } catch (const std::runtime_error& e) {
    // SQLite's reason ("file is not a database", "no such table: meta"), the run file named.
    const std::string what = e.what();
    const auto last = what.rfind(": ");
    throw std::invalid_argument("run file " + path + " cannot be read (" +
                                (last == std::string::npos ? what : what.substr(last + 2)) +
                                "): pass a run file written by stepclock or an importer");
  }
}

}  // namespace culprit::storage
