#pragma once
// A document is what one subcommand prints on stdout: one JSON value (with --json) or text
// lines. The CLI picks the format once, from --json, and hands it to the result's document
// function (compare_document, runs_document, ...), which runs only the renderer of that format
// and returns the bytes to print, final newline included: nothing renders a JSON and a text
// document to throw one away, and no caller appends a newline.

#include <string>
#include <string_view>

namespace culprit::report {

enum class Format { kText, kJson };

// One JSON value (a renderer's output, which never ends in a newline) as a document.
std::string json_document(std::string_view json);
// Text lines as a document: what they quote from traces, stores and run files (op names,
// labels, errors) may hold control characters, shown escaped (printable_lines), never raw.
// Every text renderer ends its last line with a newline; the document keeps it.
std::string text_document(std::string_view text);

}  // namespace culprit::report
