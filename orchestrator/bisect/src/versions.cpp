#include "culprit/bisect/versions.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "culprit/bisect/git_source.hpp"
#include "culprit/bisect/measurer.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/manifest/planner.hpp"

namespace culprit::bisect {
namespace fs = std::filesystem;

namespace {

class ListedVersions : public VersionSource {
 public:
  explicit ListedVersions(const manifest::Manifest& manifest) : manifest_(manifest) {
    names_ = manifest.bisect->versions;
  }
  const std::vector<std::string>& names() const override { return names_; }
  std::string detail(int index) const override {
    return manifest_.versions.at(names_.at(static_cast<std::size_t>(index))).description;
  }
  manifest::VersionSpec spec(int index) override {
    return manifest_.versions.at(names_.at(static_cast<std::size_t>(index)));
  }

 private:
  const manifest::Manifest& manifest_;
  std::vector<std::string> names_;
};

class GitVersions : public VersionSource {
 public:
  GitVersions(const manifest::GitBisectSpec& git, const std::string& repo,
              const std::string& cache_dir)
      : git_(git), cache_(repo, cache_dir, git.build) {
    commits_ = first_parent_commits(repo, git.good, git.bad);
    for (const auto& c : commits_) names_.push_back(c.sha.substr(0, 12));
  }
  const std::vector<std::string>& names() const override { return names_; }
  std::string detail(int index) const override {
    return commits_.at(static_cast<std::size_t>(index)).subject;
  }
  manifest::VersionSpec spec(int index) override {
    const auto& commit = commits_.at(static_cast<std::size_t>(index));
    const BuildOutcome built = cache_.build(commit.sha);
    if (!built.ok) throw Untestable(built.error);
    return git_version_spec(git_, names_.at(static_cast<std::size_t>(index)), built.worktree,
                            commit.sha);
  }

 private:
  manifest::GitBisectSpec git_;
  BuildCache cache_;
  std::vector<GitCommit> commits_;
  std::vector<std::string> names_;
};

class CheckoutVersions : public VersionSource {
 public:
  CheckoutVersions(const manifest::GitBisectSpec& git, const std::string& repo,
                   std::string cache_dir, std::string checkout)
      : git_(git),
        cache_(repo, cache_dir, git.build),
        cache_dir_(std::move(cache_dir)),
        checkout_(std::move(checkout)) {
    good_ = resolve_commit(repo, git.good);
    head_ = head_commit(checkout_);
    // A modified checkout is another configuration than its HEAD: it is named by its changes,
    // so measuring it never collides with (or reuses) HEAD's runs.
    const std::string changes = uncommitted_changes_hash(checkout_);
    names_ = {good_.substr(0, 12),
              "checkout-" + head_.substr(0, 12) + (changes.empty() ? "" : "+dirty-" + changes)};
    if (!changes.empty()) {
      spdlog::warn("verdict: the checkout {} has uncommitted changes; measured as {}", checkout_,
                   names_[1]);
    }
  }
  const std::vector<std::string>& names() const override { return names_; }
  std::string detail(int index) const override {
    return index == 0 ? "good commit " + good_ : "checkout " + checkout_ + " at " + head_;
  }
  manifest::VersionSpec spec(int index) override {
    if (index == 0) {
      const BuildOutcome built = cache_.build(good_);
      if (!built.ok) throw Untestable("the good commit does not build: " + built.error);
      return git_version_spec(git_, names_[0], built.worktree, good_);
    }
    fs::create_directories(cache_dir_);
    const std::string log = (fs::path(cache_dir_) / ("checkout-" + head_ + ".log")).string();
    const BuildOutcome built = build_in_place(checkout_, head_, git_.build, log);
    if (!built.ok) throw Untestable(built.error);
    return git_version_spec(git_, names_[1], checkout_, head_);
  }

 private:
  manifest::GitBisectSpec git_;
  BuildCache cache_;
  std::string cache_dir_;
  std::string checkout_;
  std::string good_;
  std::string head_;
  std::vector<std::string> names_;
};

}  // namespace

std::vector<manifest::ModelSetting> read_model_file(const std::string& path) {
  if (!fs::exists(path)) {
    throw Untestable("the build did not write the model file " + path);
  }
  try {
    // The manifest's reader: the same types, ranges and messages as [versions.NAME.model].
    return manifest::load_model_file(path, "bisect.git.model_file");
  } catch (const UsageError& e) {
    throw Untestable(e.what());  // the commit, not the manifest, is at fault
  }
}

std::string git_repository(const manifest::Manifest& manifest) {
  if (!manifest.bisect || !manifest.bisect->git) {
    throw UsageError(manifest.settings.manifest_path +
                     ": no [bisect] git = { repo, good, bad, ... } table; add one to bisect "
                     "commits");
  }
  fs::path repo = manifest.bisect->git->repo;
  if (repo.is_relative()) repo = fs::path(manifest.settings.manifest_path).parent_path() / repo;
  return fs::absolute(repo).lexically_normal().string();
}

manifest::VersionSpec git_version_spec(const manifest::GitBisectSpec& git, const std::string& name,
                                       const std::string& dir, const std::string& commit) {
  manifest::VersionSpec spec;
  spec.name = name;
  spec.command =
      substitute(git.command, {{"worktree", dir}, {"commit", commit}}, BraceEscapes::kKeep);
  if (!git.model_file.empty())
    spec.model = read_model_file((fs::path(dir) / git.model_file).string());
  spec.description = "commit " + commit;
  return spec;
}

std::unique_ptr<VersionSource> make_version_source(const manifest::Manifest& manifest,
                                                   const std::string& cache_dir) {
  if (!manifest.bisect) {
    throw UsageError(manifest.settings.manifest_path +
                     ": no [bisect] section; add versions = [...] or git = { ... } to bisect");
  }
  if (manifest.bisect->git) {
    return std::make_unique<GitVersions>(*manifest.bisect->git, git_repository(manifest),
                                         cache_dir);
  }
  return std::make_unique<ListedVersions>(manifest);
}

std::unique_ptr<VersionSource> make_checkout_source(const manifest::Manifest& manifest,
                                                    const std::string& cache_dir,
                                                    const std::string& checkout_dir) {
  const std::string repo = git_repository(manifest);
  return std::make_unique<CheckoutVersions>(*manifest.bisect->git, repo, cache_dir,
                                            fs::absolute(checkout_dir).lexically_normal().string());
}

manifest::Configuration version_configuration(const manifest::Manifest& manifest,
                                              const manifest::VersionSpec& version) {
  // Planned through the manifest module so the version composes exactly as a
  // `factor = "version"` level would: same validation, same resolved JSON, same hash.
  manifest::Manifest one = manifest;
  one.versions[version.name] = version;
  manifest::VaryLevel level;
  level.version = version.name;
  level.path = "bisect(" + version.name + ")";
  manifest::VarySpec vary;
  vary.factor = "version";
  vary.levels = {level};
  one.vary = {vary};
  one.settings.design = "one-factor-at-a-time";
  const manifest::Plan plan = manifest::make_plan(one);
  for (const auto& config : plan.configs) {
    if (config.label == "version=" + version.name) return config;
  }
  return plan.configs.front();  // the version is the baseline configuration itself
}

}  // namespace culprit::bisect
