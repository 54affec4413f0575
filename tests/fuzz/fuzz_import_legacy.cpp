// Fuzz entry point: arbitrary bytes as a legacy trace file (import_one_rank.hpp says what must
// happen to bad input).
#include <cstddef>
#include <cstdint>
#include <string>

#include "culprit/importers/kineto.hpp"
#include "import_one_rank.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bytes.reserve(size + 64);  // the padding simdjson reads past the text
  culprit::fuzz::import_one_rank(
      [&] { return culprit::importers::parse_legacy(bytes, "rank0.json"); });
  return 0;
}
