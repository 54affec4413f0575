# Shared by the pmpi integration tests. Usage of a test: <test>.sh BIN_DIR DATA_DIR WORK_DIR [EXTRA]
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
take_bin_data_work "$@"
