#pragma once
// A value's spelling (in JSON, a git exit code, a Perfetto track) kept in one table per enum,
// beside the enum's other uses, instead of a switch per mapping.

#include <cstddef>
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

}  // namespace culprit
