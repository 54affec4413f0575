// Reading every rank's file, one thread per core: the files are independent (each read_trace
// has its own buffers, parser and name table), so wall time drops with the cores while the CPU
// time stays that of reading them one by one. The error reported is the first file's in order,
// as a serial read would report it. A format whose files may hold several ranks then splits and
// numbers its files together (formats.hpp).
#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <system_error>
#include <thread>

#include "culprit/importers/import.hpp"
#include "formats.hpp"

namespace culprit::importers {
namespace {

// Each file's trace, in the files' order, read on up to one thread per core.
std::vector<RankTrace> read_files(const std::vector<std::string>& files, Format format) {
  const std::size_t threads =
      std::min<std::size_t>(files.size(), std::max(1U, std::thread::hardware_concurrency()));
  std::vector<RankTrace> out;
  out.reserve(files.size());
  if (threads <= 1) {
    for (const std::string& f : files) out.push_back(read_trace(f, format));
    return out;
  }
  std::vector<std::optional<RankTrace>> read(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        read[i] = read_trace(files[i], format);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {  // no thread to be had: the others do its files
      break;
    }
  }
  work();  // work() catches everything, so every thread is joined
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (auto& t : read) out.push_back(std::move(*t));
  return out;
}

}  // namespace

std::vector<RankTrace> read_traces(const std::vector<std::string>& files, Format format,
                                   RankBy rank_by) {
  std::vector<RankTrace> read = read_files(files, format);
  std::vector<RankTrace> traces;
  traces.reserve(read.size());
  // Files of a format that may hold several ranks are numbered together, after the others.
  for (const FormatReader& reader : format_readers()) {
    std::vector<RankTrace> group;
    for (RankTrace& t : read) {
      if (t.format == reader.name) group.push_back(std::move(t));
    }
    if (reader.split_ranks) group = reader.split_ranks(std::move(group), rank_by);
    for (RankTrace& t : group) traces.push_back(std::move(t));
  }
  return traces;
}

ImportedRun import_traces(const std::vector<std::string>& paths, const ImportOptions& options) {
  std::vector<std::string> notes;
  const std::vector<std::string> files = expand_inputs(paths, options.format, &notes);
  std::vector<RankTrace> traces = read_traces(files, options.format, options.rank_by);
  if (!traces.empty())
    traces.front().warnings.insert(traces.front().warnings.begin(), notes.begin(), notes.end());
  return build_run(std::move(traces), options);
}

}  // namespace culprit::importers
