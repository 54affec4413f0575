// The C API over one per-process session. A C API for an MPI application is necessarily
// process-wide (like MPI itself); everything it delegates to is a plain class or function.

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock_sync.hpp"
#include "gather.hpp"
#include "last_error.hpp"
#include "provenance.hpp"
#include "runfile/meta_keys.hpp"
#include "runfile/provenance_keys.hpp"
#include "stepclock/clock.hpp"
#include "stepclock/clock_model.hpp"
#include "stepclock/event_buffer.hpp"
#include "stepclock/runfile.hpp"
#include "stepclock/stepclock.h"

namespace {

using stepclock::EventBuffer;
using stepclock::OffsetEstimate;

struct StepWait {
  std::int32_t step;
  long long wait_ns;             // the stepping thread's wait for a CPU in the step
  long long collective_wait_ns;  // the part inside its timed collectives
};

struct Session {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  stepclock::RawClock clock;
  std::unique_ptr<EventBuffer> buffer;
  std::vector<std::string> names;
  std::map<std::string, std::uint16_t, std::less<>> name_ids;
  std::vector<std::pair<std::string, std::string>> meta;
  stepclock::KeyValues provenance;
  stepclock::KeyValues job_provenance;
  std::vector<OffsetEstimate> start;  // rank 0 only
  std::vector<OffsetEstimate> end;    // rank 0 only
  int exchanges = 0;
  std::string started_at;
  std::uint16_t step_name = 0;
  stepclock::CpuWaitSample cpu_wait_start;  // at init: the window the sched.* provenance covers
  // Per step, how long the stepping thread waited for a CPU inside it (sched.step_wait_ns): a
  // rank that shares its core with another process is slow in exactly the steps it waited.
  // Of that, the part inside the collectives it timed with stepclock_begin/end
  // (sched.step_collective_wait_ns): there a wait delays no arrival, only the completion of all.
  long long step_wait_start = -1;
  long long step_collective_wait = 0;
  std::vector<StepWait> step_waits;
  std::int32_t open_step = -1;
  bool collectives_timed = false;  // some collective timed on the stepping thread
  stepclock_region collective = EventBuffer::kDropped;  // the stepping thread's open one
  long long collective_wait_start = -1;
};

// True on the thread that runs the steps (stepclock_step_wait_begin): a communication
// thread's collectives overlap the step and are no wait of the stepping thread.
thread_local bool t_stepping_thread = false;

// "step:ns,step:ns,..." of one field of each step's waits (docs/schema.md, provenance).
std::string step_list(const std::vector<StepWait>& waits, long long StepWait::*field) {
  std::string list;
  for (const StepWait& w : waits) {
    if (!list.empty()) list += ',';
    list += std::to_string(w.step) + ':' + std::to_string(w.*field);
  }
  return list;
}

Session* g_session = nullptr;
thread_local std::string g_error;

int fail(const std::string& message) {
  g_error = message;
  return -1;
}

int require_session(const char* function) {
  if (g_session == nullptr) return fail(std::string(function) + ": call stepclock_init first");
  return 0;
}

// The C API call `function` inside a session: runs `body`; 0, or -1 with the exception's message
// (prefixed with the function's name) kept for stepclock_last_error.
template <class Body>
int in_session(const char* function, Body body) {
  if (require_session(function) != 0) return -1;
  try {
    body(*g_session);
    return 0;
  } catch (const std::exception& e) {
    return fail(std::string(function) + ": " + e.what());
  }
}

void set_or_replace(std::vector<std::pair<std::string, std::string>>& pairs, const char* key,
                    const char* value) {
  for (auto& [k, v] : pairs) {
    if (k == key) {
      v = value;
      return;
    }
  }
  pairs.emplace_back(key, value);
}

std::vector<OffsetEstimate> sync(Session& s, int exchanges) {
  if (exchanges < 10) throw std::invalid_argument("at least 10 exchanges are required");
  s.exchanges = exchanges;
  return stepclock::exchange_clocks(s.comm, s.clock, exchanges);
}

std::vector<OffsetEstimate> sync_adaptive(Session& s, int min_exchanges, int max_exchanges,
                                          double target_rtt_us, double budget_ms) {
  if (min_exchanges < 10) throw std::invalid_argument("at least 10 exchanges are required");
  if (max_exchanges < min_exchanges) {
    throw std::invalid_argument("max_exchanges must be >= min_exchanges");
  }
  s.exchanges = min_exchanges;
  return stepclock::exchange_clocks(s.comm, s.clock, min_exchanges, max_exchanges,
                                    static_cast<std::int64_t>(target_rtt_us * 1e3),
                                    static_cast<std::int64_t>(budget_ms * 1e6));
}

stepclock::RunFileContents collect(Session& s, const char* config_json) {
  stepclock::RunFileContents contents;
  // Names: every rank may have interned names in a different order; rank 0 unifies them.
  const auto all_names = stepclock::gather_strings(s.comm, s.names);
  std::vector<std::string> mine;
  for (const auto& [key, value] : s.provenance) {
    mine.push_back(key);
    mine.push_back(value);
  }
  mine.push_back("events_dropped");
  mine.push_back(std::to_string(s.buffer->dropped()));
  const auto all_provenance = stepclock::gather_strings(s.comm, mine);
  std::vector<stepclock::EventRecord> events =
      stepclock::gather_events(s.comm, s.buffer->data(), s.buffer->size());
  if (s.rank != 0) return contents;

  std::map<std::string, std::uint16_t> global;
  std::vector<std::vector<std::uint16_t>> remap(all_names.size());
  for (std::size_t r = 0; r < all_names.size(); ++r) {
    for (const std::string& name : all_names[r]) {
      auto [it, inserted] = global.emplace(name, static_cast<std::uint16_t>(contents.names.size()));
      if (inserted) contents.names.push_back(name);
      remap[r].push_back(it->second);
    }
  }
  for (stepclock::EventRecord& e : events) {
    const auto& table = remap[static_cast<std::size_t>(e.rank)];
    e.name = e.name < table.size() ? table[e.name] : 0;
  }
  contents.events = std::move(events);

  std::vector<std::string> hosts(static_cast<std::size_t>(s.size), "unknown");
  for (std::size_t r = 0; r < all_provenance.size(); ++r) {
    const auto& list = all_provenance[r];
    for (std::size_t i = 0; i + 1 < list.size(); i += 2) {
      contents.provenance.push_back({static_cast<std::int32_t>(r), list[i], list[i + 1]});
      if (list[i] == "host") hosts[r] = list[i + 1];
    }
  }
  for (const auto& [key, value] : s.job_provenance) {
    contents.provenance.push_back({-1, key, value});
  }
  for (int r = 0; r < s.size; ++r) {
    const auto index = static_cast<std::size_t>(r);
    const OffsetEstimate none;
    stepclock::ClockModel model =
        stepclock::clock_model(r, index < s.start.size() ? s.start[index] : none,
                               index < s.end.size() ? s.end[index] : none, s.exchanges);
    if (r == 0) {
      model = stepclock::ClockModel{};
      model.ref_ns = index < s.start.size() ? s.start[0].peer_ns : 0;
      model.exchanges = s.exchanges;
    }
    model.host = hosts[index];
    contents.clocks.push_back(model);
  }
  contents.meta = s.meta;
  set_or_replace(contents.meta, runfile::meta::kRanks, std::to_string(s.size).c_str());
  set_or_replace(contents.meta, runfile::meta::kFinishedAt, stepclock::iso8601_utc_now().c_str());
  set_or_replace(contents.meta, runfile::meta::kUnixOffsetNs,
                 std::to_string(stepclock::unix_offset_ns(s.clock)).c_str());
  bool has_started = false;
  bool has_source = false;
  for (const auto& [key, value] : contents.meta) {
    has_started |= key == runfile::meta::kStartedAt;
    has_source |= key == runfile::meta::kSource;
  }
  if (!has_started) contents.meta.emplace_back(runfile::meta::kStartedAt, s.started_at);
  if (!has_source) contents.meta.emplace_back(runfile::meta::kSource, "application");
  contents.config_json = config_json ? config_json : "{}";
  return contents;
}

}  // namespace

extern "C" {

int stepclock_init(MPI_Comm comm, int64_t capacity_events) {
  if (g_session != nullptr) return fail("stepclock_init: already initialized");
  if (capacity_events < 1) return fail("stepclock_init: capacity must be >= 1 event");
  try {
    auto session = std::make_unique<Session>();
    MPI_Comm_dup(comm, &session->comm);
    MPI_Comm_rank(session->comm, &session->rank);
    MPI_Comm_size(session->comm, &session->size);
    session->buffer =
        std::make_unique<EventBuffer>(session->rank, static_cast<std::size_t>(capacity_events));
    session->started_at = stepclock::iso8601_utc_now();
    session->cpu_wait_start = stepclock::sample_cpu_wait();
    session->step_waits.reserve(4096);  // steps beyond it grow the list (outside the timing)
    g_session = session.release();
    g_session->step_name = stepclock_name("step");
    return 0;
  } catch (const std::exception& e) {
    return fail(std::string("stepclock_init: ") + e.what());
  }
}

int stepclock_inject_clock_skew(double offset_ms, double drift_ppm) {
  if (require_session("stepclock_inject_clock_skew") != 0) return -1;
  g_session->clock.set_skew(offset_ms * 1e6, drift_ppm, stepclock::monotonic_ns());
  return 0;
}

int stepclock_sync_start(int exchanges) {
  return in_session("stepclock_sync_start",
                    [&](Session& session) { session.start = sync(session, exchanges); });
}

int stepclock_sync_end(int exchanges) {
  return in_session("stepclock_sync_end",
                    [&](Session& session) { session.end = sync(session, exchanges); });
}

int stepclock_sync_start_adaptive(int min_exchanges, int max_exchanges, double target_rtt_us,
                                  double budget_ms) {
  return in_session("stepclock_sync_start_adaptive", [&](Session& session) {
    session.start = sync_adaptive(session, min_exchanges, max_exchanges, target_rtt_us, budget_ms);
  });
}

int stepclock_sync_end_adaptive(int min_exchanges, int max_exchanges, double target_rtt_us,
                                double budget_ms) {
  return in_session("stepclock_sync_end_adaptive", [&](Session& session) {
    session.end = sync_adaptive(session, min_exchanges, max_exchanges, target_rtt_us, budget_ms);
  });
}

uint16_t stepclock_name(const char* name) {
  if (g_session == nullptr || name == nullptr) return 0;
  auto it = g_session->name_ids.find(std::string_view(name));
  if (it != g_session->name_ids.end()) return it->second;
  const auto id = static_cast<std::uint16_t>(g_session->names.size());
  g_session->names.emplace_back(name);
  g_session->name_ids.emplace(name, id);
  return id;
}

int64_t stepclock_now(void) {
  return g_session ? g_session->clock.now() : stepclock::monotonic_ns();
}

stepclock_region stepclock_begin(stepclock_kind kind, uint16_t name, stepclock_ids ids) {
  Session* s = g_session;
  if (s == nullptr) return EventBuffer::kDropped;
  const stepclock::RegionIds region{static_cast<stepclock::EventKind>(kind),
                                    name,
                                    ids.step,
                                    ids.microbatch,
                                    ids.layer,
                                    ids.seq,
                                    ids.bytes};
  // A collective of the stepping thread inside a step: its wait for a CPU is read around it
  // (outside the timed region, so the read costs the region nothing).
  if (kind == STEPCLOCK_COLLECTIVE && t_stepping_thread && s->open_step >= 0) {
    const long long wait = stepclock::thread_cpu_wait_ns();
    const stepclock_region slot = s->buffer->begin(region, s->clock.now());
    if (slot != EventBuffer::kDropped && wait >= 0) {
      s->collective = slot;
      s->collective_wait_start = wait;
    }
    return slot;
  }
  return s->buffer->begin(region, s->clock.now());
}

void stepclock_end(stepclock_region region) {
  Session* s = g_session;
  if (s == nullptr) return;
  s->buffer->end(region, s->clock.now());
  if (t_stepping_thread && region == s->collective && region != EventBuffer::kDropped) {
    const long long wait = stepclock::thread_cpu_wait_ns();
    if (wait >= s->collective_wait_start) {
      s->step_collective_wait += wait - s->collective_wait_start;
      s->collectives_timed = true;
    }
    s->collective = EventBuffer::kDropped;
  }
}

void stepclock_step_wait_begin(int32_t step) {
  Session* s = g_session;
  if (s == nullptr) return;
  t_stepping_thread = true;
  s->open_step = step;
  s->step_collective_wait = 0;
  s->step_wait_start = stepclock::thread_cpu_wait_ns();
}

void stepclock_step_wait_end(void) {
  Session* s = g_session;
  if (s == nullptr) return;
  if (s->open_step >= 0 && s->step_wait_start >= 0) {
    const long long now = stepclock::thread_cpu_wait_ns();
    if (now >= s->step_wait_start) {
      s->step_waits.push_back({s->open_step, now - s->step_wait_start,
                               std::min(s->step_collective_wait, now - s->step_wait_start)});
    }
  }
  s->open_step = -1;
}

stepclock_region stepclock_step_begin(int32_t step) {
  Session* s = g_session;
  if (s == nullptr) return EventBuffer::kDropped;
  stepclock_step_wait_begin(step);
  return stepclock_begin(STEPCLOCK_STEP, s->step_name, stepclock_ids{step, -1, -1, -1, 0});
}

void stepclock_step_end(stepclock_region region) {
  stepclock_end(region);
  stepclock_step_wait_end();
}

int stepclock_record(const stepclock_event* event) {
  if (require_session("stepclock_record") != 0) return -1;
  stepclock::EventRecord e;
  e.begin_ns = event->begin_ns;
  e.end_ns = event->end_ns;
  e.bytes = event->ids.bytes;
  e.step = event->ids.step;
  e.microbatch = event->ids.microbatch;
  e.layer = event->ids.layer;
  e.seq = event->ids.seq;
  e.device = event->device;
  e.stream = event->stream;
  e.name = event->name;
  e.kind = static_cast<stepclock::EventKind>(event->kind);
  return g_session->buffer->record(e) ? 0 : fail("stepclock_record: event buffer full");
}

int64_t stepclock_dropped(void) {
  return g_session ? g_session->buffer->dropped() : 0;
}

int stepclock_set_meta(const char* key, const char* value) {
  if (require_session("stepclock_set_meta") != 0) return -1;
  set_or_replace(g_session->meta, key, value);
  return 0;
}

int stepclock_add_provenance(const char* key, const char* value) {
  if (require_session("stepclock_add_provenance") != 0) return -1;
  g_session->provenance.emplace_back(key, value);
  return 0;
}

int stepclock_add_job_provenance(const char* key, const char* value) {
  if (require_session("stepclock_add_job_provenance") != 0) return -1;
  g_session->job_provenance.emplace_back(key, value);
  return 0;
}

int stepclock_write_run_file(const char* path, const char* config_json) {
  if (require_session("stepclock_write_run_file") != 0) return -1;
  Session& s = *g_session;
  int status = 0;
  std::string message;
  try {
    for (auto& entry : stepclock::rank_provenance()) s.provenance.push_back(std::move(entry));
    for (auto& entry :
         stepclock::cpu_wait_provenance(s.cpu_wait_start, stepclock::sample_cpu_wait())) {
      s.provenance.push_back(std::move(entry));
    }
    if (!s.step_waits.empty()) {
      s.provenance.emplace_back(runfile::provenance::kStepWaitNs,
                                step_list(s.step_waits, &StepWait::wait_ns));
      if (s.collectives_timed) {
        s.provenance.emplace_back(runfile::provenance::kStepCollectiveWaitNs,
                                  step_list(s.step_waits, &StepWait::collective_wait_ns));
      }
    }
    for (auto& entry : stepclock::job_provenance(s.comm)) {
      s.job_provenance.push_back(std::move(entry));
    }
    const stepclock::RunFileContents contents = collect(s, config_json);
    if (s.rank == 0) stepclock::write_run_file(path, contents);
  } catch (const std::exception& e) {
    status = -1;
    message = e.what();
  }
  // Every rank learns whether rank 0 wrote the file, so the job's exit status agrees.
  MPI_Bcast(&status, 1, MPI_INT, 0, s.comm);
  if (status != 0) {
    return fail("stepclock_write_run_file: " +
                (message.empty() ? std::string("rank 0 failed to write the run file") : message));
  }
  return 0;
}

void stepclock_finalize(void) {
  if (g_session == nullptr) return;
  MPI_Comm_free(&g_session->comm);
  delete g_session;
  g_session = nullptr;
}

const char* stepclock_last_error(void) {
  return g_error.c_str();
}

}  // extern "C"

void stepclock::detail::set_last_error(const std::string& message) {
  g_error = message;
}
