#include "culprit/report/document.hpp"

#include "culprit/report/terminal_text.hpp"

namespace culprit::report {

std::string json_document(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 1);
  out.append(json);
  out += '\n';
  return out;
}

std::string text_document(std::string_view text) {
  return printable_lines(text);
}

}  // namespace culprit::report
