// Fuzz entry point: arbitrary bytes as an Nsight Systems SQLite export (written to a temporary
// file, since SQLite reads files). Bad input must end in culprit::UsageError, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"
#include "culprit/importers/nsys.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char path[] = "/tmp/fuzz_import_nsys_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  const bool written = write(fd, data, size) == static_cast<ssize_t>(size);
  close(fd);
  if (written) {
    try {
      std::vector<culprit::importers::RankTrace> ranks;
      ranks.push_back(culprit::importers::parse_nsys(path));
      culprit::importers::ImportOptions options;
      options.partial = true;
      (void)culprit::importers::build_run(std::move(ranks), options);
    } catch (const culprit::UsageError&) {
    }
  }
  std::remove(path);
  return 0;
}
