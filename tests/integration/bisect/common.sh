# Shared by the bisect integration scripts: args BIN_DIR DATA_DIR WORK_DIR.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
take_bin_data_work "$@"
