#include "culprit/importers/records.hpp"

namespace culprit::importers {

std::uint32_t NameTable::intern(std::string_view name) {
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  index_.emplace(names_.back(), id);
  return id;
}

}  // namespace culprit::importers
