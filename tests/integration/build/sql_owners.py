#!/usr/bin/env python3
"""SQL is written only by its owners (issue 33: "SQL only in storage").

Usage: sql_owners.py SOURCE_DIR

A string literal of a C or C++ source that holds an SQL statement (SELECT, INSERT
INTO, UPDATE ... SET, DELETE FROM, CREATE TABLE/INDEX/VIEW/TRIGGER, ALTER TABLE, DROP, PRAGMA)
may stand only in OWNERS: the results store (storage/), the run-file library (its DDL and
writer) and the nsys reader (which queries nsys's own export, not a store of culprit's).
Everything else asks storage. The unit and integration tests, benchmarks and fuzzers are not
checked: they build stores and read them as an oracle. A hand-written file with a statement in
each form is checked first, so a pattern that matches nothing fails.
"""

import os
import re
import sys
import tempfile

from source_tree import source_files

OWNERS = ("storage/", "workloads/runfile/", "importers/nsys/")
RAW_LITERAL = re.compile(r'R"([^(\s]*)\((.*?)\)\1"', re.DOTALL)
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
QUOTE_CHARACTER = re.compile(r"'\\?\"'")  # '"' and '\"' open no string
STATEMENT = re.compile(
    r"\b(SELECT\s+\S|(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(TEMP\s+|UNIQUE\s+)?(TABLE|INDEX|VIEW|TRIGGER)|ALTER\s+TABLE|"
    r"DROP\s+(TABLE|INDEX|VIEW|TRIGGER)|PRAGMA\s+\w+)\b)")


def statements(root):
    """Yields (path, line number, literal) of each SQL literal outside the owners."""
    for path in source_files(root):
        if not path.startswith(OWNERS):
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                yield from file_statements(path, f.read())


def file_statements(path, text):
    """(path, line number, literal) of each SQL literal of one file, raw strings included."""
    found = []
    for raw in RAW_LITERAL.finditer(text):
        if STATEMENT.search(raw.group(2)):
            found.append((path, text.count("\n", 0, raw.start()) + 1, raw.group(2).strip()))
    text = RAW_LITERAL.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for number, line in enumerate(QUOTE_CHARACTER.sub("' '", text).split("\n"), 1):
        found += [(path, number, x) for x in LITERAL.findall(line) if STATEMENT.search(x)]
    return sorted(found, key=lambda x: x[1])


def check_hand_written():
    forms = ["SELECT id FROM runs", "INSERT OR REPLACE INTO meta (key) VALUES (?1)",
             "UPDATE runs SET status = 'ok'", "DELETE FROM steps", "CREATE INDEX i ON t (a)",
             "ALTER TABLE runs ADD COLUMN x", "DROP VIEW v", "PRAGMA user_version"]
    prose = ["select the runs from the store", "update the table", "a pragma"]
    with tempfile.TemporaryDirectory() as tmp:
        for top, literals in (("orchestrator/cli/", forms + prose), ("storage/src/", forms)):
            os.makedirs(os.path.join(tmp, top))
            with open(os.path.join(tmp, top, "x.cpp"), "w", encoding="utf-8") as f:
                f.write("char q = '\"'; // a quote character opens no string\n")
                f.writelines(f'const char* s{i} = "{t}";\n' for i, t in enumerate(literals))
                f.write('const char* raw = R"sql(\n  CREATE VIEW v AS\n  SELECT 1)sql";\n')
        found = [literal for _, _, literal in statements(tmp)]
        # every form outside storage, the raw string too; no prose; nothing in storage
        assert found == forms + ["CREATE VIEW v AS\n  SELECT 1"], found


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: sql_owners.py SOURCE_DIR")
    check_hand_written()
    found = list(statements(sys.argv[1]))
    for path, number, literal in found:
        print(f"FAIL: {path}:{number}: SQL outside its owners ({', '.join(OWNERS)}): "
              f"\"{literal[:80]}\"; ask storage for it", file=sys.stderr)
    print(f"SQL literals outside {', '.join(OWNERS)}: {len(found)}")
    if not os.path.isdir(os.path.join(sys.argv[1], "storage", "src")):
        sys.exit(f"FAIL: {sys.argv[1]} is not the source tree (no storage/src)")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
