#include "libreyolo/core/profiler/json_writer.hpp"

#include <cmath>

namespace libreyolo::core::profiler {

void JsonWriter::newline() {
  out_.put('\n');
  for (std::size_t i = 0; i < levels_.size(); ++i) out_ << "  ";
}

void JsonWriter::before_value() {
  if (after_key_) {  // the key already placed the separator
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  auto& level = levels_.back();
  if (!level.empty) out_.put(',');
  if (level.inline_container) {
    if (!level.empty) out_.put(' ');
  } else {
    newline();
  }
  level.empty = false;
}

JsonWriter& JsonWriter::open(char bracket, bool inline_container) {
  before_value();
  out_.put(bracket);
  // Inside an inline container everything stays on the line.
  const bool parent_inline = !levels_.empty() && levels_.back().inline_container;
  levels_.push_back({inline_container || parent_inline});
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.inline_container && !level.empty) newline();
  out_.put(bracket);
  if (levels_.empty()) out_.put('\n');
  return *this;
}

JsonWriter& JsonWriter::begin_object(bool inline_container) { return open('{', inline_container); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array(bool inline_container) { return open('[', inline_container); }
JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  eval::write_json_string(out_, name);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  eval::write_json_string(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(double number, int decimals) {
  if (!std::isfinite(number)) return null();
  before_value();
  eval::write_json_number(out_, number, decimals);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  before_value();
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

}  // namespace libreyolo::core::profiler
