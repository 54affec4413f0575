#include "log_sink.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <mutex>
#include <string_view>
#include <utility>

#include "culprit/report/terminal_text.hpp"

namespace culprit::cli {
namespace {

// Escapes the message of each line, then hands it to the colored stderr sink.
class PrintableSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit PrintableSink(spdlog::sink_ptr to) : to_(std::move(to)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string text =
        report::printable_lines(std::string_view(msg.payload.data(), msg.payload.size()));
    spdlog::details::log_msg escaped = msg;
    escaped.payload = spdlog::string_view_t(text.data(), text.size());
    to_->log(escaped);
  }
  void flush_() override { to_->flush(); }
  void set_pattern_(const std::string& pattern) override { to_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> formatter) override {
    to_->set_formatter(std::move(formatter));
  }

 private:
  spdlog::sink_ptr to_;
};

}  // namespace

std::shared_ptr<spdlog::logger> make_stderr_logger(const std::string& name) {
  auto stderr_sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  return std::make_shared<spdlog::logger>(name, std::make_shared<PrintableSink>(stderr_sink));
}

}  // namespace culprit::cli
