#pragma once
// Text checks and forms shared by every layer. Names (experiments, labels, versions) end up in
// tables on a terminal, so culprit refuses the ones holding control characters (an escape
// sequence, a carriage return) where they come in; a word culprit writes into a shell command
// (an sbatch script, a command to paste) is quoted once, here.

#include <cstddef>
#include <optional>
#include <string>
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

// A word for a POSIX shell: the text in single quotes, each ' written as '\''.
inline std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace culprit
