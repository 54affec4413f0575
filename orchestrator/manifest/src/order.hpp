#pragma once
// Deterministic randomness for planning: seeded shuffles (std::mt19937_64 is specified
// exactly by the standard; the bounded draw is ours, because the standard distributions are
// implementation-defined) and per-run seeds.

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace culprit::manifest::detail {

std::uint64_t splitmix64(std::uint64_t x);

// A uniform integer in [0, bound), without modulo bias.
std::uint64_t bounded_draw(std::mt19937_64& engine, std::uint64_t bound);

// Fisher-Yates shuffle of `items` with an engine seeded from (seed, stream).
void seeded_shuffle(std::vector<int>& items, std::uint64_t seed, std::uint64_t stream);

// The seed of one run: 53 bits (exact in a double, positive in SQLite) of
// SHA-256("experiment seed:config hash:repetition").
std::uint64_t run_seed(std::uint64_t experiment_seed, std::string_view config_hash, int repetition);

}  // namespace culprit::manifest::detail
