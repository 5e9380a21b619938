#include "libreyolo/core/eval/json_text.hpp"

#include <cstddef>
#include <cstdint>

namespace libreyolo::core::eval {
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

}  // namespace

void write_json_string(std::ostream& out, std::string_view text) {
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
    switch (c) {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\b':
        out << "\\b";
        break;
      case '\f':
        out << "\\f";
        break;
      case '\n':
        out << "\\n";
        break;
      case '\r':
        out << "\\r";
        break;
      case '\t':
        out << "\\t";
        break;
      default:
        if (c < 0x20) {
          out << "\\u00" << kHex[c >> 4] << kHex[c & 0x0F];
        } else {
          out.put(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.put('"');
}

JsonNumberStyle::JsonNumberStyle(std::ostream& out)
    : out_(out), locale_(out.getloc()), flags_(out.flags()), precision_(out.precision()) {
  out_.imbue(std::locale::classic());
  out_.setf(std::ios_base::fixed, std::ios_base::floatfield);
}

JsonNumberStyle::~JsonNumberStyle() {
  out_.imbue(locale_);
  out_.flags(flags_);
  out_.precision(precision_);
}

void write_json_number(std::ostream& out, double value, int decimals) {
  out.precision(decimals);
  out << value;
}

}  // namespace libreyolo::core::eval
