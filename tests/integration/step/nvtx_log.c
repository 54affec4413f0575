/* An NVTX tool for the tests, hand-written: loaded by NVTX's documented injection
 * (NVTX_INJECTION64_PATH=<this library>), it logs each push/pop range of the process to
 * $CULPRIT_NVTX_LOG/rank<OMPI_COMM_WORLD_RANK>-<pid>.log, a line each: "push <name>" or "pop".
 * It stands in for ncu and nsys, which read the same ranges, where no GPU is. */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static FILE* log_file;

static int NVTX_API push_a(const char* message) {
  fprintf(log_file, "push %s\n", message);
  return 0;
}

static int NVTX_API pop(void) {
  fputs("pop\n", log_file);
  return 0;
}

/* Returns 1 when the callbacks are in place; 0 makes NVTX roll back to its no-op path. */
int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const char* dir = getenv("CULPRIT_NVTX_LOG");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  char path[4096];
  if (dir == NULL) return 0;
  snprintf(path, sizeof(path), "%s/rank%s-%ld.log", dir, rank != NULL ? rank : "x", (long)getpid());
  log_file = fopen(path, "w");
  if (log_file == NULL) return 0;
  const NvtxExportTableCallbacks* callbacks =
      (const NvtxExportTableCallbacks*)get_export_table(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (callbacks == NULL || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
      size <= NVTX_CBID_CORE_RangePop) {
    return 0;
  }
  *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)push_a;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
  return 1;
}
