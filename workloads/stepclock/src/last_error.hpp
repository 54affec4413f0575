#pragma once
// The message stepclock_last_error() returns, shared by the C API's source files.
#include <string>

namespace stepclock::detail {
void set_last_error(const std::string& message);
}  // namespace stepclock::detail
