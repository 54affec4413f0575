"""What the importer checks share: a check that records its failure, culprit run as an argv
array (its output shown when the exit status is not the one expected), and a store path made
fresh (the file and SQLite's -wal and -shm beside it removed)."""
import os
import subprocess


class Checks:
    def __init__(self, culprit, work):
        self.culprit = culprit
        self.work = work
        self.failures = []

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def run(self, args, expect=0):
        p = subprocess.run([self.culprit] + args, capture_output=True, text=True)
        if p.returncode != expect:
            print("command:", " ".join(args), "rc", p.returncode, "\n", p.stdout[-2000:],
                  p.stderr[-2000:])
        return p

    def fresh(self, name):
        path = os.path.join(self.work, name)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        return path
