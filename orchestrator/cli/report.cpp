// `culprit report`: one self-contained offline HTML file with the pictures and the numbers of an
// experiment (configurations, explain, ranks x steps, validation, timeline, efficiency).
#include <string>

#include "culprit/errors.hpp"
#include "culprit/findings/report_data.hpp"
#include "culprit/report/html_report.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ReportArgs {
  CommonOptions common;
  std::string experiment;
  std::string output = "report.html";
};

void make_report(const ReportArgs& args) {
  auto store = open_existing(args.common);
  findings::ReportOptions options;
  options.experiment = args.experiment;
  const findings::ReportData data = findings::collect_report(*store, options);
  const std::string html = report::report_html(data);
  write_file(args.output, html);
  print(report::report_written_document(data.experiment, args.output, html.size(),
                                        args.common.format()));
}

}  // namespace

void register_report(CLI::App& app, Outcome& outcome) {
  const auto [command, args] = add_store_command<ReportArgs>(
      app, outcome, make_report, "report",
      "Write one self-contained offline HTML report of an experiment (pictures + numbers)");
  add_latest_experiment_option(*command, args->experiment);
  command->add_option("-o,--output", args->output, "The HTML file to write (default: report.html)");
}

}  // namespace culprit::cli
