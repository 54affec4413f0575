"""The run file (docs/schema.md): one SQLite database per run, written by rank 0 only.

The DDL is not copied here: it is read from the one owner, workloads/runfile/run_file.sql (the
file the C++ writer embeds at build time), found beside this module when installed (copy it
there) or in the repository this module is imported from.
"""

import os
import sqlite3

FORMAT_VERSION = 3  # the DDL of format 3; this module writes its events as rows (allowed)

# The order is the integer stored in event_rows.kind (run_file.sql's event_kinds rows).
EVENT_KINDS = ("compute", "collective", "host", "step")


def _owned_file(name, what):
    """A file of the run-file library (workloads/runfile/NAME): beside this module when
    installed, else in the repository this module is imported from."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, name),
                      os.path.join(here, "..", "..", "workloads", "runfile", name)):
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    raise FileNotFoundError(
        "%s (%s) is neither beside %s nor in the repository's workloads/runfile/: copy "
        "workloads/runfile/%s beside the module" % (name, what, __file__, name))


def schema_path():
    return _owned_file("run_file.sql", "the run-file DDL")


def schema_sql():
    with open(schema_path(), encoding="utf-8") as f:
        return f.read()


def _read_meta_keys():
    path = _owned_file("meta_keys.tsv", "the run meta keys")
    with open(path, encoding="utf-8") as f:
        return tuple(line.split("\t", 1)[0] for line in f
                     if line.strip() and not line.startswith("#"))


# The run meta keys culprit writes and reads, from their one owner (workloads/runfile/meta_keys.tsv,
# which the C++ library embeds as runfile::meta). An application's own facts may use any other key.
META_KEYS = _read_meta_keys()


def meta_key(name):
    """`name` if it is one of culprit's run meta keys; ValueError otherwise (a key this module
    writes or reads must be listed by the owner)."""
    if name not in META_KEYS:
        raise ValueError("run meta key %r is not in workloads/runfile/meta_keys.tsv (%s)"
                         % (name, ", ".join(META_KEYS)))
    return name


def write_run_file(path, meta, config_json, provenance, clock_models, events):
    """Writes the run file to a temporary name beside `path`, syncs it and renames it, so a
    crash never leaves a half file under the final name.

    meta: {key: value}; provenance: [(rank, key, value)]; clock_models: [dict with the
    clock_models columns]; events: [(rank, step, microbatch, layer, seq, kind, name, begin_ns,
    end_ns, bytes, device, stream)].
    """
    path = os.path.abspath(path)
    temp = "%s.tmp.%d" % (path, os.getpid())
    if os.path.exists(temp):
        os.remove(temp)
    try:
        db = sqlite3.connect(temp, isolation_level=None)
        try:
            db.execute("PRAGMA page_size=65536")
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN")
            # Statement by statement: executescript would COMMIT the open transaction.
            sql = "\n".join(line for line in schema_sql().splitlines()
                            if not line.lstrip().startswith("--"))
            for statement in sql.split(";"):
                if statement.strip():
                    db.execute(statement)
            rows = [(meta_key("format_version"), str(FORMAT_VERSION))]
            rows += [(str(k), str(v)) for k, v in meta.items() if k != meta_key("format_version")]
            db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows)
            db.executemany(
                "INSERT OR REPLACE INTO provenance (rank, key, value) VALUES (?, ?, ?)",
                [(int(r), str(k), str(v)) for r, k, v in provenance])
            db.execute("INSERT INTO config_echo (id, json) VALUES (1, ?)", (config_json,))
            db.executemany(
                "INSERT INTO clock_models (rank, host, ref_ns, offset_ns, drift_ppm, "
                "uncertainty_ns, start_rtt_ns, end_rtt_ns, exchanges) "
                "VALUES (:rank, :host, :ref_ns, :offset_ns, :drift_ppm, :uncertainty_ns, "
                ":start_rtt_ns, :end_rtt_ns, :exchanges)", clock_models)
            names = {}
            kinds = {k: i for i, k in enumerate(EVENT_KINDS)}

            def interned(rows):
                for e in rows:
                    name = names.setdefault(e[6], len(names))
                    yield e[:5] + (kinds[e[5]], name) + tuple(e[7:])

            db.executemany(
                "INSERT INTO event_rows (rank, step, microbatch, layer, seq, kind, name, "
                "begin_ns, end_ns, bytes, device, stream) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                interned(events))
            db.executemany("INSERT INTO event_names (id, name) VALUES (?, ?)",
                           [(i, n) for n, i in names.items()])
            db.execute("COMMIT")
        finally:
            db.close()
        fd = os.open(temp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
