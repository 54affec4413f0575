// Reading every rank's file, one thread per core: the files are independent (each read_trace
// has its own buffers, parser and name table), so wall time drops with the cores while the CPU
// time stays that of reading them one by one. The error reported is the first file's in order,
// as a serial read would report it.
#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <system_error>
#include <thread>

#include "culprit/importers/import.hpp"
#include "culprit/importers/nsys.hpp"

namespace culprit::importers {

std::vector<RankTrace> read_traces(const std::vector<std::string>& files, Format format,
                                   RankBy rank_by) {
  std::vector<RankTrace> traces, nsys;  // Nsight Systems exports are numbered together
  traces.reserve(files.size());
  auto add = [&](RankTrace t) { (t.format == "nsys" ? nsys : traces).push_back(std::move(t)); };
  auto done = [&] {
    for (RankTrace& r : split_nsys_ranks(std::move(nsys), rank_by)) traces.push_back(std::move(r));
    return std::move(traces);
  };
  const std::size_t threads =
      std::min<std::size_t>(files.size(), std::max(1U, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (const std::string& f : files) add(read_trace(f, format));
    return done();
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
  for (auto& t : read) add(std::move(*t));
  return done();
}

}  // namespace culprit::importers
