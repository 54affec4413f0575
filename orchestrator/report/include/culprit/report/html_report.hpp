#pragma once
// `culprit report`: one self-contained HTML file (no network at view time; the charting library,
// d3 from Debian's libjs-d3, is inlined at build time) with the pictures and the numbers of an
// experiment. What it shows is collected by findings::collect_report (the same core functions
// as compare, explain, attribute and validate); report_json() is the data document the page
// embeds and draws from.

#include <cstddef>
#include <string>

#include "culprit/findings/report_data.hpp"
#include "culprit/report/document.hpp"

namespace culprit::report {

std::string report_json(const findings::ReportData& data);
std::string report_html(const findings::ReportData& data);

// What `culprit report` prints once the page of `experiment` is written to `output`.
std::string report_written_document(const std::string& experiment, const std::string& output,
                                    std::size_t bytes, Format format);

}  // namespace culprit::report
