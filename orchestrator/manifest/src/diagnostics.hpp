#pragma once
// Manifest problems in one format: "FILE:LINE:COL: key 'x.y': expected ..., got ...; <what to
// do>". Problems are collected so one run of `culprit plan` shows all of them at once.

#include <string>
#include <string_view>
#include <vector>

#include "culprit/manifest/manifest.hpp"

namespace culprit::manifest::detail {

std::string format_problem(const SourceLocation& where, std::string_view key,
                           std::string_view expected, std::string_view got, std::string_view todo);

// The candidate closest to `word` by edit distance when it is close enough to be a likely typo.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean 'x'? " when a candidate is close, then "valid: a, b, c" (or the first ones).
std::string suggest(std::string_view word, const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& items, std::string_view separator);

class Diagnostics {
 public:
  void add(const SourceLocation& where, std::string_view key, std::string_view expected,
           std::string_view got, std::string_view todo);
  bool empty() const { return problems_.empty(); }
  std::size_t size() const { return problems_.size(); }
  // Every report, repeats included: a configuration whose only problem repeats one already
  // said (a repeated level) still has a problem (found by fuzz_manifest).
  std::size_t reports() const { return reports_; }
  // Throws culprit::UsageError with every problem, one per line, when there is any.
  void raise_if_any() const;

 private:
  std::vector<std::string> problems_;
  std::size_t reports_ = 0;
};

}  // namespace culprit::manifest::detail
