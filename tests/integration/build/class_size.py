#!/usr/bin/env python3
"""No class or struct over 300 lines (issue 33; clang-tidy keeps functions to 80 in CI).

Usage: class_size.py SOURCE_DIR

Counts each class and struct defined at namespace scope in the C and C++ sources of common/,
importers/, orchestrator/, storage/ and workloads/ (tests are not checked, as in scripts/tidy):
from the line that opens it (`class Name` or `struct Name` at the start of a line, as
clang-format writes it in an unindented namespace) to its closing `}` at the start of a line,
both counted, nested classes inside (a class on one line is not counted). A hand-written file
is checked first, so a counter that finds nothing fails. Prints the largest five.
"""

import os
import re
import sys
import tempfile

from source_tree import source_files

LIMIT = 300
OPENS = re.compile(r"^(class|struct)\s+(?:\[\[\w+\]\]\s+)?(\w+)[^;]*$")


def classes_of(text):
    """(lines, name, first line) of each namespace-scope class of one file."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        match = OPENS.match(lines[i])
        if match:
            brace = i
            while brace < len(lines) and "{" not in lines[brace] and ";" not in lines[brace]:
                brace += 1
            if brace < len(lines) and "{" in lines[brace]:
                end = brace if lines[brace].rstrip().endswith("};") else brace + 1
                while end < len(lines) and not lines[end].startswith("}"):
                    end += 1
                found.append((end - i + 1, match.group(2), i + 1))
                i = end
        i += 1
    return found


def sizes(root):
    """(lines, name, path, first line) of every class of every checked source, largest first."""
    out = []
    for path in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            out += [(n, c, path, at) for n, c, at in classes_of(f.read())]
    return sorted(out, reverse=True)


def check_hand_written():
    body = "".join(f"  int m{i} = {i};\n" for i in range(298))
    text = ("class Forward;\n"  # a declaration: not counted
            "struct Small { int a; };\n"  # one line: not counted
            f"class Long {{\n{body}}};\n"  # 300 lines with its two braces
            "namespace {\nstruct Longer\n    : Base {\n" + body + "  struct Inner {\n  };\n};\n}\n")
    found = classes_of(text)
    assert found == [(300, "Long", 3), (303, "Longer", 304)], found
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "storage", "src"))
        with open(os.path.join(tmp, "storage", "src", "x.cpp"), "w", encoding="utf-8") as f:
            f.write(text)
        assert [x for x in sizes(tmp) if x[0] > LIMIT] == [(303, "Longer", "storage/src/x.cpp", 304)]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: class_size.py SOURCE_DIR")
    check_hand_written()
    found = sizes(sys.argv[1])
    if len(found) < 100:
        sys.exit(f"FAIL: only {len(found)} classes under {sys.argv[1]}: not the source tree")
    print(f"{len(found)} classes; the largest: " +
          ", ".join(f"{c} {n} lines ({p})" for n, c, p, _ in found[:5]))
    over = [x for x in found if x[0] > LIMIT]
    for n, c, path, at in over:
        print(f"FAIL: {path}:{at}: class {c} is {n} lines, over {LIMIT}: split it by "
              "responsibility", file=sys.stderr)
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
