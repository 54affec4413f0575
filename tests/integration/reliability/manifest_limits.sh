#!/usr/bin/env bash
# Issue 15, defect 12: unbounded input is refused quickly with a clear error (exit 2).
source "$(dirname "$0")/common.sh"
python3 - <<'PY'
levels = ", ".join(str(1.0 + i / 1e6) for i in range(10001))
open("many.toml", "w").write(f"""[experiment]
name = "many"
[baseline]
ranks = 2
[[vary]]
factor = "model.compute_scale"
levels = [{levels}]
""")
open("huge.toml", "w").write("# padding\n" * 120000 + '[experiment]\nname = "huge"\n')
PY
start=$SECONDS
expect_rc "10001 configurations" 2 timeout 60 "$CULPRIT" plan many.toml
expect_log "the cap is named" "at most 10000 configurations in all"
expect_rc "a 1.2 MB manifest" 2 timeout 60 "$CULPRIT" plan huge.toml
expect_log "the size cap is named" "huge.toml: larger than 1024 KiB, not a manifest"
expect_rc "plan /dev/zero" 2 timeout 60 "$CULPRIT" plan /dev/zero
expect_log "/dev/zero is refused" "/dev/zero: larger than 1024 KiB"
[[ $((SECONDS - start)) -lt 30 ]] || fail "refusing took $((SECONDS - start)) s"
# Defect 14: every TOML example of docs/manifest.md is valid TOML (the [bisect] git one was not).
python3 - "$DATA/../../docs/manifest.md" <<'PY' || fail "docs/manifest.md holds invalid TOML"
import re, sys, tomllib
text = open(sys.argv[1]).read()
blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
assert blocks, "no toml block found"
for block in blocks:
    try:
        tomllib.loads(block)
    except tomllib.TOMLDecodeError as e:
        sys.exit(f"invalid TOML example ({e}):\n{block}")
PY
# Control characters in names never reach the terminal raw: the manifest is refused.
printf '[experiment]\nname = "evil\\u001b[2J"\n[baseline]\nranks = 2\n' > evil.toml
expect_rc "a name with an escape sequence" 2 "$CULPRIT" plan evil.toml
expect_log "the control character is named" "control character U\+001B"
echo "ok: configuration count and manifest size are capped; docs' TOML is valid"
