#pragma once
// Text files of the counter and telemetry readers, line by line: a UTF-8 byte-order mark is
// dropped, CRLF and LF both end a line, and a CSV record whose quoted field spans lines is
// joined. Fields are split RFC 4180 style (quotes, "" inside quotes, trailing empty fields).

#include <string>
#include <string_view>
#include <vector>

namespace culprit::importers {

class TextLines {
 public:
  explicit TextLines(std::string_view bytes);
  // The next line (without its end), false at the end. `line()` is its 1-based number.
  bool next(std::string_view& out);
  int line() const { return line_; }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
  int line_ = 0;
};

// Splits a CSV record into `fields`; false when a quoted field is still open at the end of
// `record` (the caller appends the next line, with "\n", and splits again).
bool split_csv(std::string_view record, std::vector<std::string>& fields);

// Reads one CSV record starting with `first` (already read from `lines`), joining lines while a
// quote is open; false when the file ended inside a quote.
bool read_csv_record(TextLines& lines, std::string_view first, std::vector<std::string>& fields);

}  // namespace culprit::importers
