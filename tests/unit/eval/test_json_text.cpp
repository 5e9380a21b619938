#include <doctest/doctest.h>

#include <locale>
#include <sstream>
#include <string>

#include "libreyolo/core/eval/json_text.hpp"

using namespace libreyolo::core::eval;

namespace {

std::string json(std::string_view text) {
  std::ostringstream out;
  write_json_string(out, text);
  return out.str();
}

// A locale that writes 1.234,5 (German style): what a user's environment may impose.
struct CommaDecimal : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

}  // namespace

TEST_CASE("json strings escape quotes, backslashes and control characters") {
  CHECK(json("plain") == "\"plain\"");
  CHECK(json("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json("line\nnext\ttab\r\b\f") == "\"line\\nnext\\ttab\\r\\b\\f\"");
  CHECK(json(std::string_view("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json(std::string_view("nul\0byte", 8)) == "\"nul\\u0000byte\"");
}

TEST_CASE("json strings pass UTF-8 through and replace invalid bytes") {
  CHECK(json("caf\xc3\xa9") == "\"caf\xc3\xa9\"");             // é
  CHECK(json("\xe7\x8c\xab") == "\"\xe7\x8c\xab\"");           // 猫
  CHECK(json("\xf0\x9f\x90\x88") == "\"\xf0\x9f\x90\x88\"");   // 🐈
  CHECK(json(std::string("a\xff") + "b") == "\"a\\ufffdb\"");  // 0xff: never valid in UTF-8
  CHECK(json("end\xc3") == "\"end\\ufffd\"");                  // truncated sequence
  CHECK(json("\xc0\xaf") == "\"\\ufffd\\ufffd\"");             // overlong '/'
  CHECK(json("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");  // UTF-16 surrogate
}

TEST_CASE("json numbers ignore the stream's locale and restore it afterwards") {
  std::ostringstream out;
  out.imbue(std::locale(std::locale::classic(), new CommaDecimal));
  {
    JsonNumberStyle style(out);
    write_json_number(out, 12345.6789, 3);
    out << ' ' << 1234567;
  }
  CHECK(out.str() == "12345.679 1234567");
  out << ' ' << 1234.5;  // the user's formatting is back
  CHECK(out.str() == "12345.679 1234567 1.234,5");
}
