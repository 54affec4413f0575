#pragma once
// Names (experiments, labels, versions) end up in tables on a terminal, so culprit refuses the
// ones holding control characters (an escape sequence, a carriage return) where they come in.

#include <cstddef>
#include <optional>
#include <string_view>

namespace culprit {

// The offset of the first control character (U+0000-U+001F or U+007F) in `text`, if any.
inline std::optional<std::size_t> first_control_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) return i;
  }
  return std::nullopt;
}

}  // namespace culprit
