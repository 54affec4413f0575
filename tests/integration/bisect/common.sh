# Shared by the bisect integration scripts: args BIN_DIR DATA_DIR WORK_DIR.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
take_bin_data_work "$@"

# bisect_ok MANIFEST DB NAME: `culprit bisect --json` into NAME.json (stderr NAME.log), which
# must exit 0.
bisect_ok() {
  exit_code_of "$CULPRIT" bisect "$1" --db "$2" --json > "$3.json" 2> "$3.log"
  [[ $RC -eq 0 ]] || fail "bisect exited $RC: $(cat "$3.json") $(tail -20 "$3.log")"
}
