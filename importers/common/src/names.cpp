#include "culprit/importers/mapping.hpp"
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

bool looks_like_operator(std::string_view name) {
  if (name.find("::") != std::string_view::npos) return true;
  std::size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  constexpr std::string_view tag = "Backward";
  return i >= tag.size() && name.substr(i - tag.size(), tag.size()) == tag;
}

}  // namespace culprit::importers
