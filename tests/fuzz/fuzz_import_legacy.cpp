// Fuzz entry point: arbitrary bytes as a legacy trace file. Bad input must end in
// culprit::UsageError (exit 2 in the CLI), never in a crash, a hang or another exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"
#include "culprit/importers/kineto.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bytes.reserve(size + 64);  // the padding simdjson reads past the text
  try {
    std::vector<culprit::importers::RankTrace> ranks;
    ranks.push_back(culprit::importers::parse_legacy(bytes, "rank0.json"));
    culprit::importers::ImportOptions options;
    options.partial = true;
    (void)culprit::importers::build_run(std::move(ranks), options);
  } catch (const culprit::UsageError&) {
  }
  return 0;
}
