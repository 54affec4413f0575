// The resolved configuration culprit writes for each run (docs/schema.md, "Resolved
// configuration") read for an application: a small JSON reader that flattens the document to
// dotted keys ("steps", "model.layers", "inject.0.rank") so C code needs no JSON library.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "last_error.hpp"
#include "stepclock/stepclock.h"

namespace {

struct Value {
  enum Kind { kString, kNumber, kBool, kNull } kind = kNull;
  std::string text;  // the string's content, or the number/bool literal
};

std::map<std::string, Value>* g_config = nullptr;
std::string g_config_path;

constexpr std::size_t kMaxConfigBytes = std::size_t{16} * 1024 * 1024;
constexpr int kMaxDepth = 64;

class Parser {
 public:
  Parser(const std::string& text, std::map<std::string, Value>& out) : s_(text), out_(out) {}
  bool parse(std::string& error) {
    if (!value("", 0)) {
      error = error_ + " at offset " + std::to_string(at_);
      return false;
    }
    skip();
    if (at_ != s_.size()) {
      error = "trailing text at offset " + std::to_string(at_);
      return false;
    }
    return true;
  }

 private:
  void skip() {
    while (at_ < s_.size() &&
           (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' || s_[at_] == '\t')) {
      ++at_;
    }
  }
  bool fail(const char* what) {
    error_ = what;
    return false;
  }
  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }
  bool string(std::string& out) {
    if (at_ >= s_.size() || s_[at_] != '"') return fail("expected a string");
    ++at_;
    while (at_ < s_.size() && s_[at_] != '"') {
      char c = s_[at_++];
      if (c == '\\') {
        if (at_ >= s_.size()) return fail("unterminated escape");
        const char e = s_[at_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'u': {
            if (at_ + 4 > s_.size()) return fail("short \\u escape");
            const unsigned long code = std::strtoul(s_.substr(at_, 4).c_str(), nullptr, 16);
            at_ += 4;
            if (code < 0x80) {
              c = static_cast<char>(code);
            } else if (code < 0x800) {
              out += static_cast<char>(0xC0 | (code >> 6));
              c = static_cast<char>(0x80 | (code & 0x3F));
            } else {
              out += static_cast<char>(0xE0 | (code >> 12));
              out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
              c = static_cast<char>(0x80 | (code & 0x3F));
            }
            break;
          }
          default:
            c = e;  // \" \\ \/
        }
      }
      out += c;
    }
    if (at_ >= s_.size()) return fail("unterminated string");
    ++at_;
    return true;
  }
  // After an element of an object or a list: ',' (another follows: more) or the closing
  // character `close` (the last: !more); anything else is an error.
  bool separator(char close, bool& more) {
    skip();
    if (at_ < s_.size() && (s_[at_] == ',' || s_[at_] == close)) {
      more = s_[at_++] == ',';
      return true;
    }
    return fail(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  }
  bool value(const std::string& key, int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    skip();
    if (at_ >= s_.size()) return fail("unexpected end");
    const char c = s_[at_];
    if (c == '{') {
      ++at_;
      skip();
      if (at_ < s_.size() && s_[at_] == '}') return ++at_, true;
      for (bool more = true; more;) {
        skip();
        std::string name;
        if (!string(name)) return false;
        skip();
        if (at_ >= s_.size() || s_[at_] != ':') return fail("expected ':'");
        ++at_;
        if (!value(join(key, name), depth + 1) || !separator('}', more)) return false;
      }
      return true;
    }
    if (c == '[') {
      ++at_;
      skip();
      int index = 0;
      if (at_ < s_.size() && s_[at_] == ']') return ++at_, true;
      for (bool more = true; more;) {
        if (!value(join(key, std::to_string(index++)), depth + 1) || !separator(']', more)) {
          return false;
        }
      }
      return true;
    }
    Value v;
    if (c == '"') {
      v.kind = Value::kString;
      if (!string(v.text)) return false;
    } else if (s_.compare(at_, 4, "true") == 0 || s_.compare(at_, 5, "false") == 0) {
      v.kind = Value::kBool;
      v.text = s_[at_] == 't' ? "true" : "false";
      at_ += v.text.size();
    } else if (s_.compare(at_, 4, "null") == 0) {
      at_ += 4;
    } else {
      const std::size_t begin = at_;
      while (at_ < s_.size() && std::strchr("+-0123456789.eE", s_[at_]) != nullptr) ++at_;
      if (at_ == begin) return fail("expected a value");
      v.kind = Value::kNumber;
      v.text = s_.substr(begin, at_ - begin);
    }
    out_[key] = v;
    return true;
  }

  const std::string& s_;
  std::map<std::string, Value>& out_;
  std::size_t at_ = 0;
  std::string error_;
};

const Value* find(const char* key, const char* function) {
  if (g_config == nullptr && stepclock_config_load(nullptr) != 0) return nullptr;
  if (key == nullptr) {
    stepclock::detail::set_last_error(std::string(function) + ": key is NULL");
    return nullptr;
  }
  const auto it = g_config->find(key);
  if (it == g_config->end()) {
    stepclock::detail::set_last_error(std::string(function) + ": no key '" + key + "' in " +
                                      g_config_path);
    return nullptr;
  }
  return &it->second;
}

}  // namespace

extern "C" {

int stepclock_config_load(const char* path) {
  const char* chosen = path != nullptr ? path : std::getenv("CULPRIT_CONFIG");
  if (chosen == nullptr || *chosen == '\0') {
    stepclock::detail::set_last_error(
        "stepclock_config_load: no path given and CULPRIT_CONFIG is not set (culprit sets it "
        "for every run)");
    return -1;
  }
  std::ifstream in(chosen, std::ios::binary);
  if (!in) {
    stepclock::detail::set_last_error(std::string("stepclock_config_load: cannot read ") + chosen +
                                      ": " + std::strerror(errno));
    return -1;
  }
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxConfigBytes) {
    stepclock::detail::set_last_error(std::string("stepclock_config_load: ") + chosen +
                                      " is larger than 16 MiB");
    return -1;
  }
  auto* parsed = new std::map<std::string, Value>;
  std::string error;
  if (!Parser(text, *parsed).parse(error)) {
    delete parsed;
    stepclock::detail::set_last_error(std::string("stepclock_config_load: ") + chosen +
                                      " is not JSON: " + error);
    return -1;
  }
  delete g_config;
  g_config = parsed;
  g_config_path = chosen;
  return 0;
}

int stepclock_config_int(const char* key, int64_t* value) {
  const Value* v = find(key, "stepclock_config_int");
  if (v == nullptr) return -1;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(v->text.c_str(), &end, 10);
  if (v->kind != Value::kNumber || *end != '\0' || errno != 0) {
    stepclock::detail::set_last_error(std::string("stepclock_config_int: '") + key +
                                      "' is not an integer (" + v->text + ")");
    return -1;
  }
  if (value != nullptr) *value = parsed;
  return 0;
}

int stepclock_config_double(const char* key, double* value) {
  const Value* v = find(key, "stepclock_config_double");
  if (v == nullptr) return -1;
  char* end = nullptr;
  const double parsed = std::strtod(v->text.c_str(), &end);
  if (v->kind != Value::kNumber || *end != '\0') {
    stepclock::detail::set_last_error(std::string("stepclock_config_double: '") + key +
                                      "' is not a number (" + v->text + ")");
    return -1;
  }
  if (value != nullptr) *value = parsed;
  return 0;
}

const char* stepclock_config_string(const char* key) {
  const Value* v = find(key, "stepclock_config_string");
  if (v == nullptr) return nullptr;
  if (v->kind == Value::kNull) {
    stepclock::detail::set_last_error(std::string("stepclock_config_string: '") + key +
                                      "' is null");
    return nullptr;
  }
  return v->text.c_str();  // numbers and booleans as their JSON text
}

}  // extern "C"
