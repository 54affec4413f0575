#include "culprit/launch/process.hpp"

#include "culprit/launch/interrupt.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

extern char** environ;

namespace culprit::launch {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Keeps only the last `limit` bytes of a stream without copying on every read.
class Tail {
 public:
  explicit Tail(std::size_t limit) : limit_(limit) {}
  void append(const char* data, std::size_t size) {
    text_.append(data, size);
    if (text_.size() > 2 * limit_ + 4096) text_.erase(0, text_.size() - limit_);
  }
  std::string take() {
    if (text_.size() > limit_) text_.erase(0, text_.size() - limit_);
    return std::move(text_);
  }

 private:
  std::size_t limit_;
  std::string text_;
};

struct Pipe {
  int read = -1;
  int write = -1;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {};
  return {fds[0], fds[1]};
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// "KEY=VALUE" entries: the inherited environment with `overrides` replacing or adding keys.
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    const std::string key(entry.substr(0, eq));
    if (!overrides.count(key)) entries.emplace_back(entry);
  }
  for (const auto& [key, value] : overrides) entries.push_back(key + "=" + value);
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// Reads what is available; returns false at end of file.
bool drain(int fd, Tail& tail) {
  char buffer[8192];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n > 0) {
    tail.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
  return n < 0 && (errno == EINTR || errno == EAGAIN);
}

}  // namespace

std::optional<std::string> find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::string_view piece = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    const std::filesystem::path dir = piece.empty() ? std::filesystem::path(".") : piece;
    const std::string candidate = (dir / name).string();
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

ProcessResult run_process(const ProcessSpec& spec, const TickCallback& tick) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.launch_error = "empty command";
    return result;
  }
  const auto executable = find_in_path(spec.argv[0]);
  if (!executable) {
    result.launch_error = "'" + spec.argv[0] + "' not found in PATH";
    return result;
  }
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = merged_environment(spec.env);
  std::vector<char*> argv = pointers(args);
  std::vector<char*> envp = pointers(env);
  Pipe out = make_pipe(), err = make_pipe(), exec_status = make_pipe();
  if (out.read < 0 || err.read < 0 || exec_status.read < 0) {
    result.launch_error = std::string("cannot create pipes: ") + std::strerror(errno);
    for (Pipe* p : {&out, &err, &exec_status}) {
      close_fd(p->read);
      close_fd(p->write);
    }
    return result;
  }
  const pid_t parent = getpid();
  const auto start = Clock::now();
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    dup2(out.write, STDOUT_FILENO);
    dup2(err.write, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execve(executable->c_str(), argv.data(), envp.data());
    const int code = errno;
    [[maybe_unused]] const auto n = write(exec_status.write, &code, sizeof code);
    _exit(127);
  }
  close_fd(out.write);
  close_fd(err.write);
  close_fd(exec_status.write);
  if (child < 0) {
    result.launch_error = std::string("fork failed: ") + std::strerror(errno);
    close_fd(out.read);
    close_fd(err.read);
    close_fd(exec_status.read);
    return result;
  }
  setpgid(child, child);  // also here, so the group exists before any kill below

  int exec_errno = 0;
  const ssize_t got = read(exec_status.read, &exec_errno, sizeof exec_errno);
  close_fd(exec_status.read);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    waitpid(child, nullptr, 0);
    close_fd(out.read);
    close_fd(err.read);
    result.launch_error = "cannot execute " + *executable + ": " + std::strerror(exec_errno);
    return result;
  }
  result.started = true;

  Tail out_tail(spec.tail_bytes), err_tail(spec.tail_bytes);
  int status = 0;
  bool exited = false;
  bool term_sent = false;
  Clock::time_point term_time{};
  double next_tick = 1.0;
  // After the child exits, its group may still hold the pipes; read what is left briefly.
  Clock::time_point exit_time{};
  while (true) {
    pollfd fds[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};
    const int ready = poll(fds, 2, 100);
    if (ready > 0) {
      if (fds[0].revents && !drain(out.read, out_tail)) close_fd(out.read);
      if (fds[1].revents && !drain(err.read, err_tail)) close_fd(err.read);
    }
    rusage usage{};
    if (!exited && wait4(child, &status, WNOHANG, &usage) == child) {
      exited = true;
      // CPU of the launcher and every descendant it reaped (the ranks under mpirun).
      result.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
      result.involuntary_switches = usage.ru_nivcsw;
      exit_time = Clock::now();
    }
    if (exited && ((out.read < 0 && err.read < 0) || seconds_since(exit_time) > 1.0)) break;
    const double elapsed = seconds_since(start);
    if (!exited && spec.timeout_s > 0 && elapsed > spec.timeout_s && !term_sent) {
      result.timed_out = true;
      kill(-child, SIGTERM);
      term_sent = true;
      term_time = Clock::now();
    }
    if (!exited && !term_sent && interrupt_signal() != 0) {
      result.interrupted_by = interrupt_signal();
      kill(-child, SIGTERM);
      term_sent = true;
      term_time = Clock::now();
    }
    if (!exited && term_sent && seconds_since(term_time) > spec.grace_s) {
      kill(-child, SIGKILL);
    }
    if (tick && elapsed >= next_tick) {
      tick(elapsed);
      next_tick = elapsed + 1.0;
    }
  }
  // Whatever is left of the group (ranks that outlived their launcher) goes with it.
  kill(-child, SIGKILL);
  close_fd(out.read);
  close_fd(err.read);
  result.wall_s = seconds_since(start);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.stdout_tail = out_tail.take();
  result.stderr_tail = err_tail.take();
  return result;
}

}  // namespace culprit::launch
