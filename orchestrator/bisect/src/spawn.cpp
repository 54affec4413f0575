#include "spawn.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace culprit::bisect::detail {
namespace {

// posix_spawn's file actions and attributes, released on every path.
class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// Spawns argv; when read_fd >= 0 reads it to the end into the result's output, after closing
// the parent's copy of the pipe's write end (or the read never sees end of file).
SpawnResult spawn_and_wait(const std::vector<std::string>& argv, FileActions& actions,
                           int read_fd = -1, int write_fd = -1) {
  SpawnResult result;
  if (argv.empty() || argv.front().empty()) {
    result.error = "empty command";
    if (read_fd >= 0) close(read_fd);
    if (write_fd >= 0) close(write_fd);
    return result;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), environ);
  if (write_fd >= 0) close(write_fd);
  if (rc != 0) {
    result.error = argv.front() + ": " + std::strerror(rc);
    if (read_fd >= 0) close(read_fd);
    return result;
  }
  result.started = true;
  if (read_fd >= 0) {
    std::array<char, 4096> buffer{};
    while (true) {
      const ssize_t got = read(read_fd, buffer.data(), buffer.size());
      if (got > 0) {
        result.output.append(buffer.data(), static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        break;
      }
    }
    close(read_fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  // A command that is not found exits 127 from the child after exec fails.
  if (result.exit_code == 127) result.error = argv.front() + ": not found or not executable";
  return result;
}

}  // namespace

std::string SpawnResult::describe() const {
  if (!started) return "could not start: " + error;
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  if (!error.empty()) return error;
  return "exit status " + std::to_string(exit_code);
}

SpawnResult run_logged(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::string& log_path) {
  FileActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(actions.get(), cwd.c_str());
  return spawn_and_wait(argv, actions);
}

SpawnResult run_captured(const std::vector<std::string>& argv, const std::string& log_path) {
  std::array<int, 2> pipe_fds{};
  if (pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
    SpawnResult result;
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  FileActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO,
                                   log_path.empty() ? "/dev/null" : log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  return spawn_and_wait(argv, actions, pipe_fds[0], pipe_fds[1]);
}

}  // namespace culprit::bisect::detail
