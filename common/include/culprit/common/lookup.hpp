#pragma once
// A value's spelling (in JSON, the store, a git exit code) kept in one table per enum and read
// both ways, instead of a switch that names and a chain of ifs that parses.

#include <cstddef>
#include <optional>
#include <utility>

namespace culprit {

template <class Key, class Value>
using LookupEntry = std::pair<Key, Value>;

// The value for `key` in `table`, `fallback` where the table has none.
template <class Key, class Value, std::size_t N>
constexpr Value lookup(const LookupEntry<Key, Value> (&table)[N], const Key& key,
                       const Value& fallback) {
  for (const auto& [k, v] : table) {
    if (k == key) return v;
  }
  return fallback;
}

// The key whose value is `value` in `table`, if one is.
template <class Key, class Value, class Probe, std::size_t N>
constexpr std::optional<Key> reverse_lookup(const LookupEntry<Key, Value> (&table)[N],
                                            const Probe& value) {
  for (const auto& [k, v] : table) {
    if (v == value) return k;
  }
  return std::nullopt;
}

}  // namespace culprit
