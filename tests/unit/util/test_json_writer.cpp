// The project's one JSON writer: string escaping (control characters, UTF-8), numbers (locale,
// fixed and general formats, non-finite as null), nesting and layout, and misuse.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <iomanip>
#include <limits>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>

#include "libreyolo/core/util/json_writer.hpp"

using libreyolo::core::util::JsonWriter;

namespace {

// A top-level scalar is written bare, so this is exactly the quoted string.
std::string json(std::string_view text) {
  std::ostringstream out;
  JsonWriter(out).value(text);
  return out.str();
}

std::string fixed(double number, int decimals) {
  std::ostringstream out;
  JsonWriter(out).value(number, decimals);
  return out.str();
}

std::string general(double number, int digits = 6) {
  std::ostringstream out;
  JsonWriter(out).value_general(number, digits);
  return out.str();
}

// A locale that writes 1.234,5 (German style): what a user's environment may impose.
struct CommaDecimal : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("json strings escape quotes, backslashes and control characters") {
  CHECK(json("plain") == "\"plain\"");
  CHECK(json("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json("line\nnext\ttab\r\b\f") == "\"line\\nnext\\ttab\\r\\b\\f\"");
  CHECK(json(std::string_view("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json(std::string_view("nul\0byte", 8)) == "\"nul\\u0000byte\"");
  CHECK(json("esc\x1b[0m") == "\"esc\\u001b[0m\"");  // a terminal colour code is kept, escaped
  CHECK(json("\x7f") == "\"\x7f\"");                  // DEL is not a JSON control character
  CHECK(json("") == "\"\"");
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

TEST_CASE("json keys are escaped like values") {
  std::ostringstream out;
  JsonWriter(out).begin_object(true).member("a\"\n", 1).end_object();
  CHECK(out.str() == "{\"a\\\"\\n\": 1}\n");
}

TEST_CASE("json numbers: fixed decimals, significant digits, integers") {
  CHECK(fixed(2.5, 2) == "2.50");
  CHECK(fixed(12345.6789, 3) == "12345.679");
  CHECK(fixed(-0.0004, 3) == "-0.000");
  CHECK(fixed(7, 0) == "7");
  CHECK(general(12.3456789) == "12.3457");  // what `ostream << double` writes
  CHECK(general(0.000123) == "0.000123");
  CHECK(general(1.5e9) == "1.5e+09");
  CHECK(general(3.0) == "3");
  CHECK(general(1.0 / 3.0, 3) == "0.333");
  std::ostringstream integers;
  JsonWriter(integers)
      .begin_array(true)
      .value(-3)
      .value(std::int64_t{1} << 40)
      .value(std::size_t{7})
      .value(static_cast<unsigned char>(200))
      .end_array();
  CHECK(integers.str() == "[-3, 1099511627776, 7, 200]\n");
}

TEST_CASE("json numbers: value_exact is the shortest text that reads back as the same double") {
  const auto exact = [](double number) {
    std::ostringstream out;
    JsonWriter(out).value_exact(number);
    return out.str();
  };
  CHECK(exact(0.1) == "0.1");  // what Python's json writes, not 0.10000000000000001
  CHECK(exact(2.5) == "2.5");
  CHECK(exact(1e-05) == "1e-05");
  CHECK(exact(0.30000000000000004) == "0.30000000000000004");
  CHECK(exact(3) == "3.0");  // still a float to the reader
  CHECK(exact(-0.0) == "-0.0");
  CHECK(exact(kNaN) == "null");
  CHECK(std::stod(exact(0.7215331077575684)) == 0.7215331077575684);
  std::ostringstream out;
  out.imbue(std::locale(std::locale::classic(), new CommaDecimal));
  JsonWriter(out).begin_array(true).value_exact(1234.5).end_array();
  CHECK(out.str() == "[1234.5]\n");  // no locale in it either
}

TEST_CASE("json numbers: NaN and infinity are written as null") {
  CHECK(fixed(kNaN, 3) == "null");
  CHECK(fixed(kInf, 3) == "null");
  CHECK(general(-kInf) == "null");
  std::ostringstream out;
  JsonWriter(out).begin_object(true).member("loss", kNaN, 4).member_general("lr", kInf).end_object();
  CHECK(out.str() == "{\"loss\": null, \"lr\": null}\n");
  const auto parsed = YAML::Load(out.str());
  CHECK(parsed["loss"].IsNull());
}

TEST_CASE("json numbers ignore the stream's locale and flags and restore them afterwards") {
  std::ostringstream out;
  out.imbue(std::locale(std::locale::classic(), new CommaDecimal));
  out << std::hex << std::showpos;
  {
    JsonWriter json(out);
    json.begin_array(true).value(12345.6789, 3).value(1234567).value_general(1234.5).value(255).end_array();
  }
  CHECK(out.str() == "[12345.679, 1234567, 1234.5, 255]\n");
  out << std::dec << std::noshowpos << 1234.5;  // the user's locale is back
  CHECK(out.str() == "[12345.679, 1234567, 1234.5, 255]\n1.234,5");
}

TEST_CASE("json containers nest, separate and indent") {
  std::ostringstream text;
  {
    JsonWriter json(text);
    json.begin_object();
    json.member("name", "a \"b\"\n");
    json.key("list").begin_array(true).value(1).value(2.5, 2).value(true).null().end_array();
    json.key("empty").begin_object().end_object();
    json.key("rows").begin_array();
    json.begin_array(true).value("x").begin_object().member("deep", false).end_object().end_array();
    json.end_array();
    json.member("nan", kNaN, 3);
    json.end_object();
  }
  CHECK(text.str() ==
        "{\n  \"name\": \"a \\\"b\\\"\\n\",\n  \"list\": [1, 2.50, true, null],\n  \"empty\": {},\n"
        "  \"rows\": [\n    [\"x\", {\"deep\": false}]\n  ],\n  \"nan\": null\n}\n");
  const auto parsed = YAML::Load(text.str());
  CHECK(parsed["name"].as<std::string>() == "a \"b\"\n");
  CHECK(parsed["list"][1].as<double>() == doctest::Approx(2.5));
  CHECK(parsed["rows"][0][1]["deep"].as<bool>() == false);
}

TEST_CASE("json layout with indent 0: one member per line, unindented") {
  std::ostringstream text;
  {
    JsonWriter json(text, 0);
    json.begin_object();
    json.key("images").begin_array();
    json.begin_object(true).member("id", 1).end_object();
    json.begin_object(true).member("id", 2).end_object();
    json.end_array();
    json.key("none").begin_array().end_array();
    json.end_object();
  }
  CHECK(text.str() == "{\n\"images\": [\n{\"id\": 1},\n{\"id\": 2}\n],\n\"none\": []\n}\n");
}

TEST_CASE("json documents end with a newline, so each is one JSON Lines line") {
  std::ostringstream lines;
  for (int epoch = 1; epoch <= 2; ++epoch) {
    JsonWriter(lines).begin_object(true).member("epoch", epoch).end_object();
  }
  CHECK(lines.str() == "{\"epoch\": 1}\n{\"epoch\": 2}\n");
}

TEST_CASE("json writer misuse is a programming error, not a broken file") {
  std::ostringstream out;
  JsonWriter json(out);
  CHECK_THROWS_AS(json.key("outside"), std::logic_error);
  json.begin_object();
  CHECK_THROWS_AS(json.value(1), std::logic_error);    // a value in an object needs a key
  CHECK_THROWS_AS(json.end_array(), std::logic_error);  // an object is open, not an array
  json.key("k");
  CHECK_THROWS_AS(json.key("again"), std::logic_error);
  CHECK_THROWS_AS(json.end_object(), std::logic_error);  // the key has no value yet
  json.value("v").end_object();
  CHECK(out.str() == "{\n  \"k\": \"v\"\n}\n");
}
