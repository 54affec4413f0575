// Fuzz entry point: arbitrary bytes as a legacy trace file (import_one_rank.hpp says what must
// happen to bad input).
#include <cstddef>
#include <cstdint>
#include <string>

#include "culprit/importers/kineto.hpp"
#include "import_one_rank.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  culprit::fuzz::import_one_json_rank(data, size, [](const std::string& text, const char* file) {
    return culprit::importers::parse_legacy(text, file);
  });
  return 0;
}
