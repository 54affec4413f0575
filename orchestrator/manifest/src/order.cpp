#include "order.hpp"

#include <string>
#include <utility>

#include "culprit/common/sha256.hpp"

namespace culprit::manifest::detail {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t bounded_draw(std::mt19937_64& engine, std::uint64_t bound) {
  // Reject the lowest (2^64 mod bound) values so every residue is equally likely.
  const std::uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t r = engine();
    if (r >= threshold) return r % bound;
  }
}

void seeded_shuffle(std::vector<int>& items, std::uint64_t seed, std::uint64_t stream) {
  std::mt19937_64 engine(splitmix64(seed ^ splitmix64(stream)));
  for (std::size_t i = items.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(bounded_draw(engine, i));
    std::swap(items[i - 1], items[j]);
  }
}

std::uint64_t run_seed(std::uint64_t experiment_seed, std::string_view config_hash,
                       int repetition) {
  const auto digest = sha256(std::to_string(experiment_seed) + ":" + std::string(config_hash) +
                             ":" + std::to_string(repetition));
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | digest[i];
  return value & ((std::uint64_t{1} << 53) - 1);
}

}  // namespace culprit::manifest::detail
