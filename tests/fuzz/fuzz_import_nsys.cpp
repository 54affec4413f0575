// Fuzz entry point: arbitrary bytes as an Nsight Systems SQLite export (written to a temporary
// file, since SQLite reads files); import_one_rank.hpp says what must happen to bad input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "culprit/importers/nsys.hpp"
#include "import_one_rank.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char path[] = "/tmp/fuzz_import_nsys_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  const bool written = write(fd, data, size) == static_cast<ssize_t>(size);
  close(fd);
  if (written) culprit::fuzz::import_one_rank([&] { return culprit::importers::parse_nsys(path); });
  std::remove(path);
  return 0;
}
