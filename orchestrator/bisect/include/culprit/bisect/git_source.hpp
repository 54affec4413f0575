#pragma once
// Versions from a git range: the commits on the first-parent path from good to bad, each
// checked out in its own worktree and built by the manifest's build command, with the outcome
// (and the log) kept in a cache folder so that a later bisection never builds a commit twice.

#include <map>
#include <string>
#include <vector>

#include "culprit/common/placeholders.hpp"

namespace culprit::bisect {

struct GitCommit {
  std::string sha;      // full hash
  std::string subject;  // first line of the message
};

// `good` itself, then `git rev-list --first-parent --reverse good..bad`: oldest first, bad last.
// Throws culprit::UsageError naming the repository and git's message when a revision does not
// resolve or good is not an ancestor of bad.
std::vector<GitCommit> first_parent_commits(const std::string& repo, const std::string& good,
                                            const std::string& bad);

// The full hash `rev` names in `repo`. Throws culprit::UsageError.
std::string resolve_commit(const std::string& repo, const std::string& rev);

// The full hash of HEAD in `dir` (a repository or worktree). Throws culprit::UsageError.
std::string head_commit(const std::string& dir);

// "" when the checkout `dir` has no uncommitted change (tracked or untracked, .gitignore
// respected); else the first 12 hex digits of a SHA-256 over those changes (the diff against
// HEAD, and each untracked file's name and content), so the same edit gets the same name.
std::string uncommitted_changes_hash(const std::string& dir);

// Replaces each "{name}" in every argument by values.at(name); other braces are left alone
// ({config} and {out} are the launcher's); `{{`/`}}` are resolved to literal braces or, for a
// command the launcher substitutes again, kept (culprit/common/placeholders.hpp).
std::vector<std::string> substitute(const std::vector<std::string>& argv,
                                    const std::map<std::string, std::string>& values,
                                    BraceEscapes escapes);

struct BuildOutcome {
  bool ok = false;
  bool cached = false;   // decided by an earlier build (marker file), not built now
  std::string worktree;  // the commit's checkout
  std::string log_path;  // build output (git worktree add, then the build command)
  std::string error;     // why it failed, one line
};

// Layout under `cache_dir`: <sha>/ the worktree, <sha>.log the build log, <sha>.ok or
// <sha>.failed the outcome. Delete a marker to build that commit again.
class BuildCache {
 public:
  // `build_argv` may use {worktree} and {commit}; empty means nothing to build.
  BuildCache(std::string repo, const std::string& cache_dir, std::vector<std::string> build_argv);

  // Checks the commit out (git worktree add --detach) and builds it there, once.
  BuildOutcome build(const std::string& sha);

  std::string worktree(const std::string& sha) const;
  const std::string& repo() const { return repo_; }

 private:
  std::string repo_;
  std::string cache_dir_;
  std::vector<std::string> build_argv_;
};

// Builds `dir` (an existing checkout, e.g. the one `git bisect run` stands in) with
// `build_argv` ({worktree} = dir), appending its output to `log_path`. No cache.
BuildOutcome build_in_place(const std::string& dir, const std::string& commit,
                            const std::vector<std::string>& build_argv,
                            const std::string& log_path);

}  // namespace culprit::bisect
