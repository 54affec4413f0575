#!/usr/bin/env bash
# The run-file DDL has one owner (workloads/runfile/run_file.sql), embedded by the C++ writer and
# read by the Python module (python/culprit/runfile.py). A run file written by each must have the
# same tables and views, the same columns (PRAGMA table_info: name, type, not null, default,
# primary key) and the same indexes, and read the same through the `events` view.
# Usage: schema_matches.sh BIN_DIR MPIRUN WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
bin=$1 mpirun=$2 work=$3 py=$4 src=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat > config.json <<'JSON'
{"experiment": "schema", "config_label": "baseline", "repetition": 0, "seed": 1,
 "backend": "cpu", "ranks": 1, "warmup_steps": 0, "steps": 1,
 "model": {"layers": 1, "microbatches": 1, "tokens": 8, "hidden": 8, "buckets": 1,
           "compute": "sleep", "flops_per_s": 1e10},
 "inject": {"delays": []}}
JSON
flags=(--bind-to none)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
"$mpirun" "${flags[@]}" -np 1 "$bin/culprit-step" --config config.json --out step.db
PYTHONPATH="$src/python" "$py" - <<'PY'
import sqlite3, culprit
clock = culprit.StepClock(config="config.json", run_file="python.db")
for s in clock.steps():
    with clock.step(s):
        with clock.region("layer0"):
            pass
clock.finish()

def schema(path):
    db = sqlite3.connect(path)
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
    out = {}
    for t in tables:
        out[t] = {"columns": db.execute("PRAGMA table_info(%s)" % t).fetchall(),
                  "indexes": sorted((i[1].split("_", 2)[-1] if i[3] == "pk" else i[1], i[2], i[3])
                                    for i in db.execute("PRAGMA index_list(%s)" % t))}
    return out

step, python = schema("step.db"), schema("python.db")
assert set(step) == {"meta", "config_echo", "provenance", "clock_models", "event_kinds",
                     "event_names", "event_packs", "event_rows", "events"}, step.keys()
for path in ("step.db", "python.db"):
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone() == ("3",)
    kinds = {r[0] for r in db.execute("SELECT DISTINCT kind FROM events")}
    assert "step" in kinds and kinds <= {"compute", "collective", "host", "step"}, (path, kinds)
    # Both writers anchor rank 0's clock to Unix time (meta unix_offset_ns): the first event
    # lands between started_at and finished_at (whole seconds).
    offset, first, started, finished = db.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'unix_offset_ns'), min(begin_ns), "
        "(SELECT strftime('%s', value) FROM meta WHERE key = 'started_at'), "
        "(SELECT strftime('%s', value) FROM meta WHERE key = 'finished_at') "
        "FROM events WHERE rank = 0").fetchone()
    assert int(started) <= (int(offset) + first) / 1e9 <= int(finished) + 1, \
        (path, offset, first, started, finished)
assert sorted(step) == sorted(python), (sorted(step), sorted(python))
for table in step:
    assert step[table] == python[table], (table, step[table], python[table])
print("ok: %d tables, identical columns and indexes" % len(step))
PY
