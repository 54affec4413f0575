#pragma once
// Every log line reaches a terminal, and its text holds what users and files wrote (labels,
// experiment names, a run file's error, a child's stderr): control characters in it are shown
// escaped ("\x1b", "\r"), never interpreted; line breaks stay, so a multi-line message (the
// manifest's list of problems) still reads as lines. One sink, so no message can forget it.

#include <spdlog/logger.h>

#include <memory>
#include <string>

namespace culprit::cli {

// The default logger: "culprit: LEVEL: message" on stderr, colored where stderr is a terminal.
std::shared_ptr<spdlog::logger> make_stderr_logger(const std::string& name);

}  // namespace culprit::cli
