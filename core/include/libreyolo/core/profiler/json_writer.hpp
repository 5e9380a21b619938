#pragma once
// A small streaming JSON writer for the profiler's files: commas, nesting and indentation are
// tracked here; strings and numbers go through eval/json_text.hpp (escaping, "C" locale).
// Containers opened "inline" stay on one line (a trace event, a table row), others get one
// member per line.

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

#include "libreyolo/core/eval/json_text.hpp"

namespace libreyolo::core::profiler {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out), style_(out) {}

  JsonWriter& begin_object(bool inline_container = false);
  JsonWriter& end_object();
  JsonWriter& begin_array(bool inline_container = false);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number, int decimals = 3);  // non-finite numbers become null
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();

  // key(name).value(v) in one call.
  template <class T>
  JsonWriter& member(std::string_view name, const T& v) {
    return key(name).value(v);
  }
  JsonWriter& member(std::string_view name, double number, int decimals) { return key(name).value(number, decimals); }

 private:
  struct Level {
    bool inline_container;
    bool empty = true;
  };
  void before_value();
  JsonWriter& open(char bracket, bool inline_container);
  JsonWriter& close(char bracket);
  void newline();

  std::ostream& out_;
  eval::JsonNumberStyle style_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace libreyolo::core::profiler
