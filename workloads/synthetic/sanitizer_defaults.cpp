// Linked into culprit-step only in CULPRIT_SANITIZE builds. Open MPI and the plugins it loads
// keep allocations until exit in frames LeakSanitizer cannot name (no frame pointers, modules
// it cannot map), so no suppression can match them and every rank would end with a leak
// report. Leak checking is therefore off in the MPI ranks by default; culprit, culprit-sim and
// the other tools keep it in the ASan integration tests (scripts/test), and the unit tests and
// fuzz targets check culprit-step's own code (stepclock, stepmodel) for leaks. An explicit
// ASAN_OPTIONS=detect_leaks=1 still turns it on: the environment is read after these defaults.
extern "C" const char* __asan_default_options();
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0";
}
