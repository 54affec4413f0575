#pragma once
// [*.inject] tables and delay levels: the same keys as the resolved configuration's "inject"
// (docs/schema.md), with `steps = N` or `steps = [first, last]` as a shorthand.

#include <optional>
#include <string>

#include "toml_reader.hpp"

namespace culprit::manifest::detail {

InjectionSpec parse_inject(TomlReader& reader, const toml::node& node, const std::string& path);
std::optional<Located<stepmodel::DelayInjection>> parse_delay(TomlReader& reader,
                                                              const toml::node& node,
                                                              const std::string& path);

}  // namespace culprit::manifest::detail
