/* stepclock: built-in step timing for MPI applications (C API; C++ wrapper in stepclock.hpp).
 *
 * Lifecycle, on every rank of the communicator:
 *   stepclock_init(comm, capacity)      preallocates the event buffer (no allocation later)
 *   stepclock_sync_start(exchanges)     ping-pong with rank 0 (collective)
 *   ... stepclock_begin/stepclock_end around each phase, stepclock_step_begin/end per step ...
 *   stepclock_sync_end(exchanges)       second ping-pong: gives each rank's drift (collective)
 *   stepclock_write_run_file(path, cfg) rank 0 gathers every buffer, writes one SQLite run file
 *   stepclock_finalize()
 * Recording (begin/end/record) is lock-free and thread-safe; everything else is called from one
 * thread. Functions returning int give 0 on success, -1 on failure (see stepclock_last_error). */
#ifndef STEPCLOCK_STEPCLOCK_H
#define STEPCLOCK_STEPCLOCK_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stepclock_kind {
  STEPCLOCK_COMPUTE = 0,    /* GEMMs, optimizer: work on this rank */
  STEPCLOCK_COLLECTIVE = 1, /* begin = arrival (call entry), end = completion; give bytes */
  STEPCLOCK_HOST = 2,       /* host-side work (data loading, launch overhead) */
  STEPCLOCK_STEP = 3        /* one per rank and step */
} stepclock_kind;

/* A recorded region: the slot reserved by stepclock_begin, or -1 when the buffer was full. */
typedef int64_t stepclock_region;

/* Identifiers of one region; -1 where an identifier does not apply. */
typedef struct stepclock_ids {
  int32_t step;
  int32_t microbatch;
  int32_t layer;
  int32_t seq; /* collective sequence number within the step (matched across ranks) */
  int64_t bytes;
} stepclock_ids;

/* An event timed outside stepclock_begin/end (e.g. GPU events mapped onto the host clock). */
typedef struct stepclock_event {
  stepclock_kind kind;
  uint16_t name;
  stepclock_ids ids;
  int64_t begin_ns; /* raw clock of this rank (stepclock_now) */
  int64_t end_ns;
  int16_t device; /* -1 on the host */
  int16_t stream;
} stepclock_event;

int stepclock_init(MPI_Comm comm, int64_t capacity_events);
/* Testing only: adds offset_ms and drift_ppm to this rank's raw clock (call before sync). */
int stepclock_inject_clock_skew(double offset_ms, double drift_ppm);
int stepclock_sync_start(int exchanges); /* >= 10 exchanges; the minimum round trip is kept */
int stepclock_sync_end(int exchanges);
/* The same, adaptively (for hosts where the first round trips can all be long): with each
 * peer at least min_exchanges (>= 10), then more until the minimum round trip is at most
 * target_rtt_us, max_exchanges were made, or budget_ms passed. Collective. */
int stepclock_sync_start_adaptive(int min_exchanges, int max_exchanges, double target_rtt_us,
                                  double budget_ms);
int stepclock_sync_end_adaptive(int min_exchanges, int max_exchanges, double target_rtt_us,
                                double budget_ms);

/* Interns an event name ("gemm.fwd"); call before the timed loop. Returns the id. */
uint16_t stepclock_name(const char* name);

int64_t stepclock_now(void); /* this rank's raw clock, ns */
/* A STEPCLOCK_COLLECTIVE region begun and ended on the stepping thread inside a step also reads
 * the thread's wait for a CPU around it (outside the timed region): the step's part inside its
 * collectives is kept as sched.step_collective_wait_ns (docs/stepclock.md). */
stepclock_region stepclock_begin(stepclock_kind kind, uint16_t name, stepclock_ids ids);
void stepclock_end(stepclock_region region);
stepclock_region stepclock_step_begin(int32_t step);
void stepclock_step_end(stepclock_region region);
int stepclock_record(const stepclock_event* event);
/* For a program whose steps are cut from outside and recorded with stepclock_record (the PMPI
 * interposer): the start and the end of a step on the thread that runs it. Between the two the
 * thread's wait for a CPU is kept as the rank's sched.step_wait_ns, as stepclock_step_begin and
 * stepclock_step_end do, so that a step slowed by a busy core is labelled the environment. */
void stepclock_step_wait_begin(int32_t step);
void stepclock_step_wait_end(void);
int64_t stepclock_dropped(void); /* events lost to a full buffer on this rank */

/* Run facts written to the run file. meta: rank 0's values are written (docs/schema.md keys:
 * backend, warmup_steps, steps, model_flops_per_step, parameter_bytes, source, ...; ranks,
 * started_at and finished_at are filled in). provenance: this rank's key/value, gathered. */
int stepclock_set_meta(const char* key, const char* value);
int stepclock_add_provenance(const char* key, const char* value);
int stepclock_add_job_provenance(const char* key, const char* value);

/* Collective. Rank 0 writes `path` atomically (temp name + rename); config_json is echoed
 * verbatim (may be NULL on ranks other than 0). Returns the same status on every rank. */
int stepclock_write_run_file(const char* path, const char* config_json);
void stepclock_finalize(void);
const char* stepclock_last_error(void);

/* The resolved configuration culprit wrote for this run (a JSON file; docs/schema.md), read
 * without a JSON library. Keys are dotted paths: "steps", "warmup_steps", "model.layers",
 * "inject.0.rank". The first lookup loads $CULPRIT_CONFIG; stepclock_config_load(path) reads
 * another file (NULL: $CULPRIT_CONFIG). Need no stepclock_init. Return 0 (or a string) on
 * success; -1 (or NULL) when the file or the key is missing or has another type, with the
 * reason in stepclock_last_error(). Strings stay valid until the next stepclock_config_load. */
int stepclock_config_load(const char* path);
int stepclock_config_int(const char* key, int64_t* value);
int stepclock_config_double(const char* key, double* value);
const char* stepclock_config_string(const char* key); /* numbers/booleans as their JSON text */

#ifdef __cplusplus
}
#endif

#endif /* STEPCLOCK_STEPCLOCK_H */
