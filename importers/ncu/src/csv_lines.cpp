#include "culprit/importers/csv_lines.hpp"

namespace culprit::importers {

TextLines::TextLines(std::string_view bytes) : bytes_(bytes) {
  if (bytes_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
}

bool TextLines::next(std::string_view& out) {
  if (at_ >= bytes_.size()) return false;
  const std::size_t end = bytes_.find('\n', at_);
  const std::size_t stop = end == std::string_view::npos ? bytes_.size() : end;
  out = bytes_.substr(at_, stop - at_);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  at_ = end == std::string_view::npos ? bytes_.size() : end + 1;
  ++line_;
  return true;
}

bool split_csv(std::string_view record, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < record.size(); ++i) {
    const char c = record[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < record.size() && record[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return !quoted;
}

bool read_csv_record(TextLines& lines, std::string_view first, std::vector<std::string>& fields) {
  std::string joined(first);
  while (!split_csv(joined, fields)) {
    std::string_view more;
    if (!lines.next(more)) return false;
    joined += '\n';
    joined += more;
  }
  return true;
}

}  // namespace culprit::importers
