#pragma once
// Manifest -> TOML: the one writer of manifests, beside the parser (parse_manifest). What it
// writes parses back to the same Manifest (places in the file aside): every value is written
// with the digits that read back as the same number. Used by `culprit reduce`, which builds its
// reduced experiment as a typed Manifest and writes it once.

#include <map>
#include <string>
#include <vector>

#include "culprit/manifest/manifest.hpp"

namespace culprit::manifest {

// How to lay a manifest out: comments, keyed by a value's path as the parser names it
// ("baseline.model.noise_cv", "baseline.model.schedule[3]", "versions.cause-1.inject",
// "reduced_from.excess_steps"). A comment's text is one line; a control character in it (a
// newline would end the comment early) is written as '?'. An empty header line is a bare '#'.
struct ManifestLayout {
  std::vector<std::string> header;                         // the file's first lines
  std::map<std::string, std::vector<std::string>> before;  // lines above the key at a path
  std::map<std::string, std::string> after;                // at the end of that key's line
  // [versions.NAME] tables written first, in this order (e.g. the model before its causes); the
  // rest follow by name.
  std::vector<std::string> version_order;
};

// The TOML text of `manifest`: [experiment] and [stats] with every setting, [launch] when set,
// [reduced_from], [baseline] (its model and schedule), [versions.NAME], [[vary]] and [bisect].
// Settings at their default that culprit does not always write (timeout_s, db, design, python)
// are left out.
std::string write_manifest(const Manifest& manifest, const ManifestLayout& layout = {});

}  // namespace culprit::manifest
