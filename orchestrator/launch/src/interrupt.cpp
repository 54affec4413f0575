#include "culprit/launch/interrupt.hpp"

#include <signal.h>

#include <atomic>

namespace culprit::launch {
namespace {

volatile sig_atomic_t received = 0;
std::atomic<int> depth{0};
struct sigaction previous_int {
}, previous_term{}, previous_hup{};

extern "C" void on_signal(int signal) {
  received = signal;
}

}  // namespace

InterruptScope::InterruptScope() {
  if (depth.fetch_add(1) > 0) return;
  received = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll() and waitpid() return EINTR at once
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);
  // The terminal closed (an ssh session dropped): the same orderly stop as SIGTERM.
  sigaction(SIGHUP, &action, &previous_hup);
  installed_ = true;
}

InterruptScope::~InterruptScope() {
  depth.fetch_sub(1);
  if (!installed_) return;
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  sigaction(SIGHUP, &previous_hup, nullptr);
}

int interrupt_signal() {
  return received;
}

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  if (signal == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(signal);
}

}  // namespace culprit::launch
