// The page: the template with the style, d3, the data document and the drawing script inlined.
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "culprit/common/lookup.hpp"
#include "culprit/report/html_report.hpp"
#include "culprit/report/json_writer.hpp"
#include "report_assets.hpp"

namespace culprit::report {
namespace {

// Inside <script>, "</script" would end the element and "<!--" open a comment state that
// swallows the drawing script: every '<' (in JSON only ever inside a string) becomes \u003c.
std::string script_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// The characters HTML text and attribute values give a meaning to, spelled as entities.
constexpr LookupEntry<char, std::string_view> kHtmlEntities[] = {
    {'<', "&lt;"}, {'>', "&gt;"}, {'&', "&amp;"}, {'"', "&quot;"}};

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    const std::string_view entity = lookup(kHtmlEntities, c, std::string_view());
    if (entity.empty()) {
      out += c;
    } else {
      out += entity;
    }
  }
  return out;
}

}  // namespace

std::string report_html(const findings::ReportData& data) {
  const std::string json = script_safe(report_json(data));
  const std::string_view page = assets::report_html();
  std::string out;
  out.reserve(page.size() + json.size() + assets::d3_js().size() + 65536);
  // Markers are replaced in the template only, never inside what was inlined.
  std::size_t at = 0;
  while (at < page.size()) {
    const std::size_t open = page.find("{{", at);
    if (open == std::string_view::npos) {
      out.append(page.substr(at));
      break;
    }
    const std::size_t close = page.find("}}", open);
    out.append(page.substr(at, open - at));
    const std::string_view marker = page.substr(open + 2, close - open - 2);
    if (marker == "TITLE") {
      out += html_escape(data.experiment);
    } else if (marker == "STYLE") {
      out.append(assets::report_css());
    } else if (marker == "D3") {
      out.append(assets::d3_js());
    } else if (marker == "DATA") {
      out += json;
    } else if (marker == "SCRIPT") {
      out.append(assets::report_js());
    } else if (marker == "WHY_SCRIPT") {
      out.append(assets::report_why_js());
    } else {
      out.append(page.substr(open, close + 2 - open));
    }
    at = close + 2;
  }
  return out;
}

namespace {

std::string report_written_json(const std::string& experiment, const std::string& output,
                                std::size_t bytes) {
  JsonWriter json;
  json.begin_object()
      .field("experiment", experiment)
      .field("output", output)
      .field("bytes", static_cast<std::int64_t>(bytes))
      .end_object();
  return json.str();
}

std::string report_written_text(const std::string& experiment, const std::string& output,
                                std::size_t bytes) {
  return fmt::format("report of experiment '{}' written to {} ({:.1f} MB)\n", experiment,
                     std::filesystem::absolute(output).string(), static_cast<double>(bytes) / 1e6);
}

}  // namespace

std::string report_written_document(const std::string& experiment, const std::string& output,
                                    std::size_t bytes, Format format) {
  return format == Format::kJson ? json_document(report_written_json(experiment, output, bytes))
                                 : text_document(report_written_text(experiment, output, bytes));
}

}  // namespace culprit::report
