#pragma once
// Text from stores, run files and child processes (labels, errors, host names) is shown on a
// terminal: control characters in it (escape sequences, carriage returns) are printed escaped
// ("\x1b"), never raw. Tabs and line breaks become "\t" and "\n" so a table keeps one line per row.
// Tables are padded to their longest cell (column_width).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace culprit::report {

std::string printable(std::string_view text);

// printable() of each line, the line breaks kept: for whole reports and multi-line messages.
std::string printable_lines(std::string_view text);

// The width of a text table's column: its longest cell (`cell(row)`, a string), at least
// `at_least`, the table's usual layout, so that a long label widens the column instead of
// pushing the rest of its row out of line.
template <class Rows, class Cell>
std::size_t column_width(std::size_t at_least, const Rows& rows, Cell cell) {
  for (const auto& row : rows) at_least = std::max(at_least, std::size(cell(row)));
  return at_least;
}

}  // namespace culprit::report
