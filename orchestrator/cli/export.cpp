#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <limits>
#include <optional>

#include "culprit/analysis/attribution.hpp"
#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/stored_runs.hpp"
#include "culprit/analysis/timeline.hpp"
#include "culprit/errors.hpp"
#include "culprit/report/perfetto_export.hpp"
#include "culprit/report/store_listings.hpp"
#include "culprit/storage/queries.hpp"
#include "culprit/storage/run_data.hpp"
#include "culprit/storage/store.hpp"
#include "subcommand.hpp"

namespace culprit::cli {
namespace {

struct ExportOptions {
  CommonOptions common;
  std::string format = "csv";
  std::string experiment;
  std::optional<std::int64_t> run;
  std::string steps;   // "A:B", either side may be empty
  std::string ranks;   // "0,5,60-63"
  std::string output;  // empty: stdout
};

int parse_int(const std::string& text, const std::string& option) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end && text.front() != '-') {
    throw UsageError(option + ": '" + text + "' is too large (at most " +
                     std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  if (ec != std::errc() || ptr != end || value < 0) {
    throw UsageError(option + ": '" + text + "' is not a non-negative integer");
  }
  return value;
}

void parse_steps(const std::string& text, report::TraceFilter& filter) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos)
    throw UsageError("--steps '" + text + "': expected FIRST:LAST (e.g. 10:12, 10: or :12)");
  const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  if (!a.empty()) filter.first_step = parse_int(a, "--steps");
  if (!b.empty()) filter.last_step = parse_int(b, "--steps");
  if (filter.first_step >= 0 && filter.last_step >= 0 && filter.first_step > filter.last_step)
    throw UsageError("--steps '" + text + "': the first step is after the last");
}

// The job's rank ids (a partial import's ranks 2 and 3 are named 2 and 3).
void parse_ranks(const std::string& text, const storage::RunData& run,
                 report::TraceFilter& filter) {
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    const std::string first = dash == std::string::npos ? item : item.substr(0, dash);
    const std::string last = dash == std::string::npos ? item : item.substr(dash + 1);
    if (first.empty() || last.empty()) {  // "-1", "3-", "0,,2": no side may be empty
      throw UsageError(
          "--ranks '" + text + "': '" + item +
          "' is not a rank R or a range A-B of ranks (each 0 or more), e.g. 0,5,60-63");
    }
    const int lo = parse_int(first, "--ranks");
    const int hi = parse_int(last, "--ranks");
    std::vector<int> ids;
    for (int r = 0; r < run.ranks && hi >= lo; ++r) {
      if (const int id = run.rank_id(r); id >= lo && id <= hi) ids.push_back(id);
    }
    if (hi < lo || static_cast<std::int64_t>(ids.size()) != std::int64_t{hi} - lo + 1) {
      throw UsageError(
          "--ranks '" + text + "': '" + item +
          (hi < lo ? "' is a range A-B with A after B" : "' names a rank this run does not have") +
          " (the run's ranks: " + run.rank_list() + ")");
    }
    filter.ranks.insert(filter.ranks.end(), ids.begin(), ids.end());
    at = comma + 1;
  }
}

// A document (report/ renders it whole, final newline included) to stdout or to a file.
void write_output(const std::string& path, const std::string& document) {
  if (path.empty() || path == "-") {
    print(document);
    return;
  }
  write_file(path, document);
}

// One run as Chrome trace-event JSON on the aligned clock (Perfetto, chrome://tracing).
void export_perfetto(storage::Db& db, const ExportOptions& o) {
  if (!o.run) {
    throw UsageError("--format perfetto exports one run: give its RUN id (see `culprit runs`)");
  }
  storage::RunData run;
  try {
    run = storage::load_run(db, *o.run);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (run.events.empty()) {
    const auto found = storage::find_run(db, *o.run);
    const std::string state =
        found ? found->status + (found->error.empty() ? "" : ": " + found->error) : "?";
    throw UsageError("run " + std::to_string(*o.run) + " in " + db.path() +
                     " has no events to export (" + state +
                     "): export an ok run (see `culprit runs`)");
  }
  report::TraceFilter filter;
  if (!o.steps.empty()) parse_steps(o.steps, filter);
  if (!o.ranks.empty()) parse_ranks(o.ranks, run, filter);
  report::check_trace_filter(run, filter);
  analysis::AttributionOptions options;
  options.peak_flops_per_device = analysis::configured_peak_flops(db, *o.run);
  const analysis::RunAttribution attribution = analysis::attribute_run(run, options);
  const analysis::Timeline timeline = analysis::build_timeline(run);
  write_output(o.output, report::json_document(report::perfetto_trace(
                             timeline, analysis::time_collectives(timeline), attribution, filter)));
}

}  // namespace

void register_export(CLI::App& app, Outcome& outcome) {
  const auto [command, o] = add_store_command<ExportOptions>(
      app, "export",
      "Export per-step data as CSV or JSON, or one run's timeline as a Perfetto trace");
  command
      ->add_option("--format", o->format,
                   "csv (default), json, or perfetto (one RUN as Chrome trace-event JSON)")
      ->check(CLI::IsMember({"csv", "json", "perfetto"}));
  command->add_option("--experiment", o->experiment, "Only the steps of this experiment (name)");
  command->add_option("RUN", o->run, "perfetto: the run to export (see `culprit runs`)");
  command->add_option("--steps", o->steps, "perfetto: only steps FIRST:LAST (inclusive)");
  command->add_option("--ranks", o->ranks, "perfetto: only these ranks, e.g. 0,5,60-63");
  command->add_option("-o,--output", o->output, "The file to write (default: stdout)");
  command->callback([&outcome, o = o, command = command] {
    if (o->common.json && command->count("--format") > 0 && o->format != "json") {
      throw UsageError("--json and --format " + o->format +
                       " ask for two formats: pass one of them (--json is --format json)");
    }
    auto db = open_existing(o->common);
    if (o->format == "perfetto") {
      export_perfetto(*db, *o);
      outcome.exit_code = exit_code::kOk;
      return;
    }
    // What only a timeline can use is refused, not silently dropped from a table export.
    for (const char* only_perfetto : {"RUN", "--steps", "--ranks"}) {
      if (command->count(only_perfetto) > 0) {
        throw UsageError(std::string(only_perfetto) + " selects what --format perfetto exports; " +
                         o->format + " exports every step of the experiment (choose it with " +
                         "--experiment)");
      }
    }
    storage::check_experiment_exists(*db, o->experiment);
    const auto rows = storage::export_steps(*db, o->experiment);
    const bool json = o->common.json || o->format == "json";
    write_output(o->output, report::steps_document(
                                rows, json ? report::Format::kJson : report::Format::kText));
    outcome.exit_code = exit_code::kOk;
  });
}

}  // namespace culprit::cli
