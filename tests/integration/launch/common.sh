# Shared by the launcher's integration scripts: arguments, a scratch folder, and assertions.
# Usage in a script: source common.sh BIN_DIR DATA_DIR SCRATCH_DIR
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
take_bin_data_work "$@"
