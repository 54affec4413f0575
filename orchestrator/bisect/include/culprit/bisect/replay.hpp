#pragma once
// A bisection replayed from the store, launching nothing: the state machine of run_bisection
// asks for run medians exactly as `culprit bisect` did, and gets the stored ones (the same runs,
// in repetition order), so a finished bisection is reproduced step by step. A version asked for
// more runs than the store holds counts as untestable ("not measured"): the replay of an
// unfinished bisection says where it stopped. For `culprit report`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/bisect/bisector.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/storage/db.hpp"

namespace culprit::bisect {

struct StoredVersion {
  std::string name;
  std::string detail;
  std::vector<double> medians_ms;  // every stored ok run, in repetition order
};

struct Replay {
  Result result;
  std::vector<StoredVersion> versions;  // the manifest's order, first good .. last bad
};

// nullopt with `why` set when the manifest has no [bisect] section or bisects a git range (its
// versions are commits built on demand; a replay must not build).
std::optional<Replay> replay_bisection(storage::Db& store, std::int64_t experiment_id,
                                       const manifest::Manifest& manifest, std::string& why);

}  // namespace culprit::bisect
