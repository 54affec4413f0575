// Shared by the importer fuzz targets: one rank's trace, parsed by `parse`, goes through
// build_run as `culprit import --partial` would. Bad input must end in culprit::UsageError (exit
// 2 in the CLI), never in a crash, a hang or another exception: any other exception escapes.
#pragma once

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

}  // namespace culprit::fuzz
