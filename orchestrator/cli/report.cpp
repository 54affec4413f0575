// `culprit report`: one self-contained offline HTML file with the pictures and the numbers of an
// experiment (configurations, explain, ranks x steps, validation, timeline, efficiency).
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "culprit/errors.hpp"
#include "culprit/report/html_report.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ReportArgs {
  CommonOptions common;
  std::string experiment;
  std::string output = "report.html";
};

// Written to a temporary name, then renamed: a reader never sees half a page.
void write_file(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw UsageError("cannot write '" + temp + "': check that its folder exists and is writable");
    out << text;
    out.close();
    if (!out) throw UsageError("writing '" + temp + "' failed (disk full?)");
  }
  std::filesystem::rename(temp, path);
}

int make_report(const ReportArgs& args) {
  auto store = storage::open_existing_store(args.common.db.empty() ? "culprit.db" : args.common.db);
  report::ReportOptions options;
  options.experiment = args.experiment;
  const report::ReportData data = report::collect_report(*store, options);
  const std::string html = report::report_html(data);
  write_file(args.output, html);
  spdlog::info("report of experiment '{}' written to {} ({:.1f} MB)", data.experiment, args.output,
               static_cast<double>(html.size()) / 1e6);
  if (args.common.json) {
    report::JsonWriter json;
    json.begin_object()
        .field("experiment", data.experiment)
        .field("output", args.output)
        .field("bytes", static_cast<std::int64_t>(html.size()))
        .end_object();
    std::cout << json.str() << "\n";
  } else {
    std::cout << "report written to " << std::filesystem::absolute(args.output).string() << "\n";
  }
  return exit_code::kOk;
}

}  // namespace

void register_report(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "report",
      "Write one self-contained offline HTML report of an experiment (pictures + numbers)");
  auto args = std::make_shared<ReportArgs>();
  add_json_flag(*command, args->common);
  add_db_option(*command, args->common);
  command->add_option("--experiment", args->experiment,
                      "Experiment name (default: the most recent one in the store)");
  command->add_option("-o,--output", args->output, "The HTML file to write (default: report.html)");
  command->callback([&outcome, args] { outcome.exit_code = make_report(*args); });
}

}  // namespace culprit::cli
