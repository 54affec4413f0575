#pragma once
// parse_manifest(write_manifest(m)) == m, places in the file aside (shared by unit.manifest and
// unit.reduce): the written text's lines and columns differ from the source's by nature, and
// its text and hash are the written ones.

#include <doctest/doctest.h>

#include <string>

#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/write.hpp"

namespace culprit::manifest::testing {

template <typename T>
void clear_places(std::vector<Located<T>>& items) {
  for (auto& item : items) item.where = {};
}

inline void clear_places(InjectionSpec& inject) {
  clear_places(inject.delays);
  clear_places(inject.slowdowns);
  clear_places(inject.clock_skews);
  clear_places(inject.faults);
}

inline void clear_places(InstrumentSpec& instrument) {
  instrument.instrument_where = {};
  instrument.step_rule_where = {};
}

// `m` with every SourceLocation and the source text and its hash cleared.
inline Manifest without_places(Manifest m) {
  m.settings.manifest_text.clear();
  m.settings.manifest_hash.clear();
  BaselineSpec& b = m.baseline;
  b.where = b.schedule_where = b.ranks_where = b.version_where = {};
  for (auto& setting : b.model) setting.where = {};
  clear_places(b.inject);
  clear_places(b.instrument);
  for (auto& [name, v] : m.versions) {
    v.where = {};
    for (auto& setting : v.model) setting.where = {};
    clear_places(v.inject);
    clear_places(v.instrument);
  }
  for (auto& vary : m.vary) {
    vary.where = {};
    for (auto& level : vary.levels) level.where = {};
  }
  if (m.bisect) m.bisect->where = {};
  return m;
}

// Writes `m`, parses the text back under the same path and requires the same manifest.
inline void check_round_trip(const Manifest& m, const ManifestLayout& layout = {}) {
  const std::string text = write_manifest(m, layout);
  Manifest back;
  try {
    back = parse_manifest(text, m.settings.manifest_path);
  } catch (const std::exception& e) {
    FAIL_CHECK("the written manifest does not parse: " << std::string(e.what()) << "\n" << text);
    return;
  }
  const bool same = without_places(back) == without_places(m);
  CHECK_MESSAGE(same, "parse(write(m)) != m for " << m.settings.manifest_path << ":\n" << text);
  // Written again, the text is the same: nothing was left to the second pass.
  CHECK(write_manifest(back, layout) == text);
}

}  // namespace culprit::manifest::testing
