#pragma once
// The versions a manifest's [bisect] section names, as configurations of that manifest:
// listed versions are its [versions.NAME] entries; git commits become entries built on the fly
// (command and model overrides taken from the commit's build, docs/manifest.md).

#include <memory>
#include <string>
#include <vector>

#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/plan.hpp"

namespace culprit::bisect {

class VersionSource {
 public:
  virtual ~VersionSource() = default;
  // Ordered, first good, last bad: version names, or 12-digit commit hashes.
  virtual const std::vector<std::string>& names() const = 0;
  // One line about the version (a commit's subject); "" when none.
  virtual std::string detail(int index) const = 0;
  // The version as a [versions.NAME] entry. Throws Untestable when it cannot be built.
  virtual manifest::VersionSpec spec(int index) = 0;
};

// The source for manifest.bisect (listed versions or a git range). Builds of git commits go
// to `cache_dir`. Throws culprit::UsageError when the manifest has no [bisect] section or the
// git range does not resolve.
std::unique_ptr<VersionSource> make_version_source(const manifest::Manifest& manifest,
                                                   const std::string& cache_dir);

// For `culprit verdict`: two versions, [0] the good commit of manifest.bisect.git (built in
// its cached worktree) and [1] the checkout in `checkout_dir` as it stands (built in place,
// its build log under cache_dir). Throws culprit::UsageError without a git range.
std::unique_ptr<VersionSource> make_checkout_source(const manifest::Manifest& manifest,
                                                    const std::string& cache_dir,
                                                    const std::string& checkout_dir);

// The configuration of `version` in this manifest (label "version=NAME"): the baseline with
// the version's command, environment and model overrides.
manifest::Configuration version_configuration(const manifest::Manifest& manifest,
                                              const manifest::VersionSpec& version);

// A model file written by a commit's build: TOML with [baseline.model] keys, e.g.
// `compute_scale = 1.15`. Throws Untestable naming the file and the key when it is missing or
// invalid (the commit, not the manifest, is at fault).
std::vector<manifest::ModelSetting> read_model_file(const std::string& path);

// The git repository of manifest.bisect.git, resolved against the manifest's directory.
std::string git_repository(const manifest::Manifest& manifest);

// The version entry for a checkout of `commit` in `dir` (built already): git.command with
// {worktree} and {commit} filled in, and the model overrides of git.model_file.
manifest::VersionSpec git_version_spec(const manifest::GitBisectSpec& git, const std::string& name,
                                       const std::string& dir, const std::string& commit);

}  // namespace culprit::bisect
