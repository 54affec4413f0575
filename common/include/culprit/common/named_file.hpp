#pragma once
// Reading a whole file that the user named (a trace, an ncu export, a peaks or telemetry file):
// one place that tells a missing path, a folder and a failed read apart, each a UsageError that
// names the path and what it should have been (exit 2). Read as a stream, a folder opens and
// then fails inside the standard library (an internal error, exit 1, before this owner).

#include <string>
#include <string_view>

namespace culprit {

// The file's bytes. `what` is what the file should be, with its article ("an ncu CSV export").
std::string read_named_file(const std::string& path, std::string_view what);

}  // namespace culprit
