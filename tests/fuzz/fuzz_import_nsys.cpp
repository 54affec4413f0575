// Fuzz entry point: arbitrary bytes as an Nsight Systems SQLite export (written to a scratch
// file, since SQLite reads files); import_one_rank.hpp says what must happen to bad input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "culprit/importers/nsys.hpp"
#include "import_one_rank.hpp"
#include "scratch_dir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string pattern = culprit::fuzz::scratch_dir() + "/fuzz_import_nsys_XXXXXX";
  std::string path = pattern;
  const int fd = mkstemp(path.data());
  if (fd < 0) return 0;
  const bool written = write(fd, data, size) == static_cast<ssize_t>(size);
  close(fd);
  if (written) culprit::fuzz::import_one_rank([&] { return culprit::importers::parse_nsys(path); });
  std::remove(path.c_str());
  return 0;
}
