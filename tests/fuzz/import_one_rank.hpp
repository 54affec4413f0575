// Shared by the importer fuzz targets: one rank's trace, parsed by `parse`, goes through
// build_run as `culprit import --partial` would. Bad input must end in culprit::UsageError (exit
// 2 in the CLI), never in a crash, a hang or another exception: any other exception escapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/importers/import.hpp"

namespace culprit::fuzz {

template <class Parse>
void import_one_rank(Parse&& parse) {
  try {
    std::vector<importers::RankTrace> ranks;
    ranks.push_back(std::forward<Parse>(parse)());
    importers::ImportOptions options;
    options.partial = true;
    (void)importers::build_run(std::move(ranks), options);
  } catch (const UsageError&) {
  }
}

// The JSON importers' entry: `parse(text, file name)` reads the bytes as one rank's trace file.
template <class ParseJson>
void import_one_json_rank(const std::uint8_t* data, std::size_t size, ParseJson&& parse) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bytes.reserve(size + 64);  // the padding simdjson reads past the text
  import_one_rank([&] { return std::forward<ParseJson>(parse)(bytes, "rank0.json"); });
}

}  // namespace culprit::fuzz
