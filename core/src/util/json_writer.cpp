#include "libreyolo/core/util/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace libreyolo::core::util {
namespace {

// Length of the well-formed UTF-8 sequence starting at text[i], or 0 if it is not one
// (overlong forms, surrogates and code points past U+10FFFF count as malformed).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t at) { return static_cast<std::uint8_t>(text[at]); };
  const std::uint8_t lead = byte(i);
  std::size_t length = 0;
  std::uint8_t low = 0x80;
  std::uint8_t high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

// The escape of one ASCII byte, or nullptr when it stands for itself.
const char* short_escape(std::uint8_t c) {
  switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return nullptr;
  }
}

void write_string(std::ostream& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.put('"');
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<std::uint8_t>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out << "\\ufffd";
        ++i;
      } else {
        out.write(text.data() + i, static_cast<std::streamsize>(length));
        i += length;
      }
      continue;
    }
    if (const char* escape = short_escape(c)) {
      out << escape;
    } else if (c < 0x20) {
      out << "\\u00" << kHex[c >> 4] << kHex[c & 0x0F];
    } else {
      out.put(static_cast<char>(c));
    }
    ++i;
  }
  out.put('"');
}

}  // namespace

JsonWriter::JsonWriter(std::ostream& out, int indent)
    : out_(out),
      indent_(indent),
      saved_locale_(out.getloc()),
      saved_flags_(out.flags()),
      saved_precision_(out.precision()) {
  // A user's locale (LC_ALL=de_DE) would otherwise write 1.234,5; a caller's std::hex or
  // std::showpos would write numbers JSON does not have.
  out_.imbue(std::locale::classic());
  out_.flags(std::ios_base::dec);
}

JsonWriter::~JsonWriter() {
  out_.imbue(saved_locale_);
  out_.flags(saved_flags_);
  out_.precision(saved_precision_);
}

void JsonWriter::newline() {
  out_.put('\n');
  for (std::size_t i = 0; i < levels_.size() * static_cast<std::size_t>(indent_); ++i) out_.put(' ');
}

void JsonWriter::separate() {
  auto& level = levels_.back();
  if (!level.empty) out_.put(',');
  if (level.inline_container) {
    if (!level.empty) out_.put(' ');
  } else {
    newline();
  }
  level.empty = false;
}

// Misuse throws std::logic_error: a programming error, not a user's, and the document would
// not parse.
void JsonWriter::before_value() {
  if (after_key_) {  // the key already placed the separator
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  if (levels_.back().close == '}') throw std::logic_error("JsonWriter: a value inside an object needs a key first");
  separate();
}

JsonWriter& JsonWriter::open(char bracket, bool inline_container) {
  before_value();
  out_.put(bracket);
  // Inside an inline container everything stays on the line.
  const bool parent_inline = !levels_.empty() && levels_.back().inline_container;
  levels_.push_back({bracket == '{' ? '}' : ']', inline_container || parent_inline});
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  if (levels_.empty() || levels_.back().close != bracket || after_key_) {
    throw std::logic_error(std::string("JsonWriter: '") + bracket + "' does not close the open container");
  }
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
  if (levels_.empty() || levels_.back().close != '}' || after_key_) {
    throw std::logic_error("JsonWriter: a key belongs directly inside an object");
  }
  separate();
  write_string(out_, name);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  write_string(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(double number, int decimals) {
  if (!std::isfinite(number)) return null();
  before_value();
  out_.setf(std::ios_base::fixed, std::ios_base::floatfield);
  out_.precision(decimals);
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value_general(double number, int digits) {
  if (!std::isfinite(number)) return null();
  before_value();
  out_.unsetf(std::ios_base::floatfield);
  out_.precision(digits);
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value_exact(double number) {
  if (!std::isfinite(number)) return null();
  char text[32];  // the shortest round-trip form of any double fits in 24 characters
  const auto written = std::to_chars(text, text + sizeof text, number);
  before_value();
  out_.write(text, written.ptr - text);
  // 3.0, not 3: a float stays a float for the reader, as Python writes it.
  if (std::string_view(text, static_cast<std::size_t>(written.ptr - text)).find_first_of(".eE") == std::string_view::npos) {
    out_ << ".0";
  }
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t number) {
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

}  // namespace libreyolo::core::util
