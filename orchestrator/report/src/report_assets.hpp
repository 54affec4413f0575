#pragma once
// The files inlined into the binary at build time (cmake/EmbedAssets.cmake): d3 from
// /usr/share/javascript/d3 (Debian's libjs-d3) and the report page's own HTML, CSS and script.

#include <string_view>

namespace culprit::report::assets {

std::string_view d3_js();
std::string_view report_js();
std::string_view report_why_js();  // the why block and the telemetry map (its own file)
std::string_view report_css();
std::string_view report_html();

}  // namespace culprit::report::assets
