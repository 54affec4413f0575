#pragma once
// Text from stores, run files and child processes (labels, errors, host names) is shown on a
// terminal: control characters in it (escape sequences, carriage returns) are printed escaped
// ("\x1b"), never raw. Tabs and line breaks become "\t" and "\n" so a table keeps one line per row.

#include <string>
#include <string_view>

namespace culprit::report {

std::string printable(std::string_view text);

// printable() of each line, the line breaks kept: for whole reports and multi-line messages.
std::string printable_lines(std::string_view text);

}  // namespace culprit::report
