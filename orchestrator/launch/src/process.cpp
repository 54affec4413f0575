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

namespace {

// The child's side of the fork: its own process group, dying with culprit, stdin from
// /dev/null, then exec; only async-signal-safe calls. An exec failure's errno goes back through
// `exec_status`.
[[noreturn]] void exec_child(pid_t parent, const std::string& executable, char* const argv[],
                             char* const envp[], const Pipe& out, const Pipe& err,
                             const Pipe& exec_status) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);
  dup2(out.write, STDOUT_FILENO);
  dup2(err.write, STDERR_FILENO);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  execve(executable.c_str(), argv, envp);
  const int code = errno;
  [[maybe_unused]] const auto n = write(exec_status.write, &code, sizeof code);
  _exit(127);
}

// A started child: its pid (the id of its process group too) and the read ends of its output.
struct Child {
  pid_t pid = -1;
  Pipe out;
  Pipe err;
};

// Forks and execs `executable`; nullopt with result.launch_error set when it could not start.
std::optional<Child> spawn(const ProcessSpec& spec, const std::string& executable,
                           ProcessResult& result) {
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = merged_environment(spec.env);
  std::vector<char*> argv = pointers(args);
  std::vector<char*> envp = pointers(env);
  Child child{-1, make_pipe(), make_pipe()};
  Pipe exec_status = make_pipe();
  if (child.out.read < 0 || child.err.read < 0 || exec_status.read < 0) {
    result.launch_error = std::string("cannot create pipes: ") + std::strerror(errno);
    for (Pipe* p : {&child.out, &child.err, &exec_status}) {
      close_fd(p->read);
      close_fd(p->write);
    }
    return std::nullopt;
  }
  const pid_t parent = getpid();
  child.pid = fork();
  if (child.pid == 0) {
    exec_child(parent, executable, argv.data(), envp.data(), child.out, child.err, exec_status);
  }
  close_fd(child.out.write);
  close_fd(child.err.write);
  close_fd(exec_status.write);
  if (child.pid < 0) {
    result.launch_error = std::string("fork failed: ") + std::strerror(errno);
    close_fd(child.out.read);
    close_fd(child.err.read);
    close_fd(exec_status.read);
    return std::nullopt;
  }
  setpgid(child.pid, child.pid);  // also here, so the group exists before any kill below

  int exec_errno = 0;
  const ssize_t got = read(exec_status.read, &exec_errno, sizeof exec_errno);
  close_fd(exec_status.read);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    waitpid(child.pid, nullptr, 0);
    close_fd(child.out.read);
    close_fd(child.err.read);
    result.launch_error = "cannot execute " + executable + ": " + std::strerror(exec_errno);
    return std::nullopt;
  }
  return child;
}

// SIGTERM to the child's group once, at the timeout or at culprit's own interrupt, then
// SIGKILL after the grace period.
class Stopper {
 public:
  void check(pid_t group, const ProcessSpec& spec, double elapsed, ProcessResult& result) {
    if (spec.timeout_s > 0 && elapsed > spec.timeout_s && !term_sent_) {
      result.timed_out = true;
      terminate(group);
    }
    if (!term_sent_ && interrupt_signal() != 0) {
      result.interrupted_by = interrupt_signal();
      terminate(group);
    }
    if (term_sent_ && seconds_since(term_time_) > spec.grace_s) kill(-group, SIGKILL);
  }

 private:
  void terminate(pid_t group) {
    kill(-group, SIGTERM);
    term_sent_ = true;
    term_time_ = Clock::now();
  }
  bool term_sent_ = false;
  Clock::time_point term_time_{};
};

// Reads the child's output into the tails until it has exited and its pipes are closed (or a
// second has passed since: its group may still hold them), stopping it as Stopper says and
// ticking once a second. Returns the wait status.
int supervise(Child& child, const ProcessSpec& spec, const TickCallback& tick,
              Clock::time_point start, Tail& out_tail, Tail& err_tail, ProcessResult& result) {
  int status = 0;
  bool exited = false;
  Stopper stopper;
  double next_tick = 1.0;
  Clock::time_point exit_time{};
  while (true) {
    pollfd fds[2] = {{child.out.read, POLLIN, 0}, {child.err.read, POLLIN, 0}};
    const int ready = poll(fds, 2, 100);
    if (ready > 0) {
      if (fds[0].revents && !drain(child.out.read, out_tail)) close_fd(child.out.read);
      if (fds[1].revents && !drain(child.err.read, err_tail)) close_fd(child.err.read);
    }
    rusage usage{};
    if (!exited && wait4(child.pid, &status, WNOHANG, &usage) == child.pid) {
      exited = true;
      // CPU of the launcher and every descendant it reaped (the ranks under mpirun).
      result.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
      result.involuntary_switches = usage.ru_nivcsw;
      exit_time = Clock::now();
    }
    if (exited && ((child.out.read < 0 && child.err.read < 0) || seconds_since(exit_time) > 1.0))
      break;
    const double elapsed = seconds_since(start);
    if (!exited) stopper.check(child.pid, spec, elapsed, result);
    if (tick && elapsed >= next_tick) {
      tick(elapsed);
      next_tick = elapsed + 1.0;
    }
  }
  return status;
}

}  // namespace

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
  const auto start = Clock::now();
  std::optional<Child> child = spawn(spec, *executable, result);
  if (!child) return result;
  result.started = true;

  Tail out_tail(spec.tail_bytes), err_tail(spec.tail_bytes);
  const int status = supervise(*child, spec, tick, start, out_tail, err_tail, result);
  // Whatever is left of the group (ranks that outlived their launcher) goes with it.
  kill(-child->pid, SIGKILL);
  close_fd(child->out.read);
  close_fd(child->err.read);
  result.wall_s = seconds_since(start);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.stdout_tail = out_tail.take();
  result.stderr_tail = err_tail.take();
  return result;
}

}  // namespace culprit::launch
