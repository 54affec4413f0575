#include "culprit/bisect/git_source.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "culprit/common/sha256.hpp"
#include "culprit/errors.hpp"
#include "spawn.hpp"

namespace culprit::bisect {
namespace fs = std::filesystem;
using detail::run_captured;
using detail::run_logged;

namespace {

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

// Runs git in `repo` and returns its stdout; UsageError with git's own words on failure.
std::string git(const std::string& repo, std::vector<std::string> args, const std::string& what) {
  std::vector<std::string> argv = {"git", "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  const fs::path errors = fs::temp_directory_path() / ("culprit-git-" + std::to_string(getpid()));
  const auto result = run_captured(argv, errors.string());
  std::string message;
  {
    std::ifstream in(errors);
    std::getline(in, message);
  }
  std::error_code ignored;
  fs::remove(errors, ignored);
  if (!result.ok()) {
    throw UsageError("bisect.git: " + what + " in repository " + repo + " failed (" +
                     result.describe() + (message.empty() ? "" : ": " + message) +
                     "); check repo, good and bad in the manifest's [bisect] git table");
  }
  return result.output;
}

void write_marker(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text << "\n";
}

std::string read_first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

void log_line(const std::string& log_path, const std::string& line) {
  std::ofstream out(log_path, std::ios::app);
  out << line << "\n";
}

std::string join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

std::vector<GitCommit> first_parent_commits(const std::string& repo, const std::string& good,
                                            const std::string& bad) {
  const std::string good_sha = trim(
      git(repo, {"rev-parse", "--verify", good + "^{commit}"}, "resolving good '" + good + "'"));
  const std::string bad_sha =
      trim(git(repo, {"rev-parse", "--verify", bad + "^{commit}"}, "resolving bad '" + bad + "'"));
  git(repo, {"merge-base", "--is-ancestor", good_sha, bad_sha},
      "checking that good '" + good + "' is an ancestor of bad '" + bad + "'");
  const std::string listing =
      git(repo, {"log", "--first-parent", "--reverse", "--format=%H %s", good_sha + ".." + bad_sha},
          "listing the commits " + good + ".." + bad);
  std::vector<GitCommit> commits;
  commits.push_back(
      {good_sha, trim(git(repo, {"log", "-1", "--format=%s", good_sha}, "reading " + good))});
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const auto space = line.find(' ');
    commits.push_back(
        {line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1)});
  }
  if (commits.size() < 2 || commits.back().sha != bad_sha) {
    throw UsageError("bisect.git: bad '" + bad + "' is not on the first-parent path from good '" +
                     good + "' in " + repo + "; choose a good commit that bad's history reaches");
  }
  return commits;
}

std::string resolve_commit(const std::string& repo, const std::string& rev) {
  return trim(git(repo, {"rev-parse", "--verify", rev + "^{commit}"}, "resolving '" + rev + "'"));
}

std::string head_commit(const std::string& dir) {
  return trim(git(dir, {"rev-parse", "--verify", "HEAD^{commit}"}, "reading HEAD"));
}

std::string uncommitted_changes_hash(const std::string& dir) {
  const std::string status =
      git(dir, {"status", "--porcelain=v1", "--untracked-files=all"}, "reading the status");
  if (trim(status).empty()) return "";
  std::string content = git(dir, {"diff", "HEAD", "--binary"}, "diffing against HEAD");
  const std::string untracked =
      git(dir, {"ls-files", "--others", "--exclude-standard", "-z"}, "listing untracked files");
  for (std::size_t begin = 0; begin < untracked.size();) {
    const std::size_t end = std::min(untracked.find('\0', begin), untracked.size());
    const std::string name = untracked.substr(begin, end - begin);
    begin = end + 1;
    std::ifstream in(fs::path(dir) / name, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    // Each file as NUL "untracked" NUL name NUL bytes: the separators keep a name and the bytes
    // after it apart ("ab" holding "c" is not "a" holding "bc"). std::string literals, since a
    // C string would end at its first NUL.
    using namespace std::string_literals;
    content += "\0untracked\0"s + name + '\0' + bytes.str();
  }
  return sha256_hex(content).substr(0, 12);
}

std::vector<std::string> substitute(const std::vector<std::string>& argv,
                                    const std::map<std::string, std::string>& values,
                                    BraceEscapes escapes) {
  std::vector<std::string> out;
  for (const std::string& arg : argv) out.push_back(substitute_placeholders(arg, values, escapes));
  return out;
}

BuildCache::BuildCache(std::string repo, const std::string& cache_dir,
                       std::vector<std::string> build_argv)
    : repo_(std::move(repo)),
      // Absolute: git runs with -C repo, and builds run inside the worktree.
      cache_dir_(fs::absolute(cache_dir).lexically_normal().string()),
      build_argv_(std::move(build_argv)) {}

std::string BuildCache::worktree(const std::string& sha) const {
  return (fs::path(cache_dir_) / sha).string();
}

BuildOutcome BuildCache::build(const std::string& sha) {
  fs::create_directories(cache_dir_);
  const fs::path base = fs::path(cache_dir_) / sha;
  BuildOutcome outcome;
  outcome.worktree = base.string();
  outcome.log_path = base.string() + ".log";
  const fs::path ok_marker = base.string() + ".ok";
  const fs::path failed_marker = base.string() + ".failed";
  if (fs::exists(ok_marker) && fs::exists(base)) {
    outcome.ok = outcome.cached = true;
    return outcome;
  }
  if (fs::exists(failed_marker)) {
    outcome.cached = true;
    outcome.error = read_first_line(failed_marker);
    return outcome;
  }
  if (!fs::exists(base / ".git")) {
    // A worktree removed by hand stays registered until pruned; prune so `add` can reuse it.
    run_logged({"git", "-C", repo_, "worktree", "prune"}, "", outcome.log_path);
    const std::vector<std::string> add = {"git", "-C",       repo_,         "worktree",
                                          "add", "--detach", base.string(), sha};
    log_line(outcome.log_path, "$ " + join(add));
    const auto result = run_logged(add, "", outcome.log_path);
    if (!result.ok()) {
      // Not recorded as a failed build: the checkout, not the commit, went wrong.
      outcome.error =
          "git worktree add failed (" + result.describe() + "), see " + outcome.log_path;
      return outcome;
    }
  }
  const BuildOutcome built = build_in_place(base.string(), sha, build_argv_, outcome.log_path);
  outcome.ok = built.ok;
  outcome.error = built.error;
  write_marker(outcome.ok ? ok_marker : failed_marker, outcome.ok ? "built" : outcome.error);
  spdlog::info("bisect: built {} {} ({})", sha.substr(0, 12), outcome.ok ? "ok" : "FAILED",
               outcome.log_path);
  return outcome;
}

BuildOutcome build_in_place(const std::string& dir, const std::string& commit,
                            const std::vector<std::string>& build_argv,
                            const std::string& log_path) {
  BuildOutcome outcome;
  outcome.worktree = dir;
  outcome.log_path = log_path;
  if (build_argv.empty()) {
    outcome.ok = true;
    return outcome;
  }
  const auto argv =
      substitute(build_argv, {{"worktree", dir}, {"commit", commit}}, BraceEscapes::kResolve);
  log_line(log_path, "$ " + join(argv));
  const auto result = run_logged(argv, dir, log_path);
  outcome.ok = result.ok();
  if (!outcome.ok) outcome.error = "build failed (" + result.describe() + "), see " + log_path;
  return outcome;
}

}  // namespace culprit::bisect
