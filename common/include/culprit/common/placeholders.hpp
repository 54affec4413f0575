#pragma once
// Placeholders in a command's argv words (docs/manifest.md): `{name}` for a name the caller
// knows ({config}, {out}, {worktree}, {commit}) is replaced by its value; `{{` and `}}` stand
// for a literal brace; every other brace is kept as written, so JSON arguments, awk programs
// and a shell's `${VAR}` pass through unchanged.

#include <cctype>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace culprit {

enum class BraceEscapes {
  kResolve,  // the last substitution: `{{` becomes `{`, `}}` becomes `}`
  kKeep,     // a first stage (bisect's {worktree}): escapes stay for the launcher's stage
};

// `{name}` at `at` of `word`, when a placeholder's form (lowercase letters and `_`), else
// nullopt.
inline std::optional<std::string_view> placeholder_at(std::string_view word, std::size_t at) {
  if (word[at] != '{') return std::nullopt;
  std::size_t end = at + 1;
  while (end < word.size() &&
         (std::islower(static_cast<unsigned char>(word[end])) != 0 || word[end] == '_')) {
    ++end;
  }
  if (end == at + 1 || end >= word.size() || word[end] != '}') return std::nullopt;
  return word.substr(at + 1, end - at - 1);
}

inline std::string substitute_placeholders(std::string_view word,
                                           const std::map<std::string, std::string>& values,
                                           BraceEscapes escapes) {
  std::string out;
  for (std::size_t at = 0; at < word.size();) {
    const bool doubled =
        at + 1 < word.size() && (word[at] == '{' || word[at] == '}') && word[at + 1] == word[at];
    if (doubled) {
      out.append(escapes == BraceEscapes::kResolve ? 1 : 2, word[at]);
      at += 2;
      continue;
    }
    if (const auto name = placeholder_at(word, at)) {
      if (const auto value = values.find(std::string(*name)); value != values.end()) {
        out += value->second;
        at += name->size() + 2;
        continue;
      }
    }
    out += word[at++];
  }
  return out;
}

// The first `{name}` of `word` that looks like a placeholder but names none of `known` (a typo
// such as `{conifg}`), skipping escaped braces and a shell's `${name}`; nullopt when none.
template <typename Known>
std::optional<std::string> unknown_placeholder(std::string_view word, const Known& known) {
  for (std::size_t at = 0; at < word.size(); ++at) {
    if (at + 1 < word.size() && (word[at] == '{' || word[at] == '}') && word[at + 1] == word[at]) {
      ++at;
      continue;
    }
    const auto name = placeholder_at(word, at);
    if (!name || (at > 0 && word[at - 1] == '$')) continue;
    bool found = false;
    for (const auto& k : known) found = found || k == *name;
    if (!found) return "{" + std::string(*name) + "}";
  }
  return std::nullopt;
}

}  // namespace culprit
