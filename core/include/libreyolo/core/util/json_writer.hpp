#pragma once
// The project's one JSON writer. Every JSON file the host writes goes through it (profile.json,
// profile_trace.json, the COCO files, metrics.jsonl, bench json=FILE), so escaping and number
// formatting are right in one place instead of almost right in several.
//
// It streams: commas, nesting and indentation are tracked here, nothing is buffered. A
// container opened "inline" stays on one line (a trace event, a table row); the others get one
// member per line, indented by `indent` spaces per level (0: each member on its own line,
// unindented, as the COCO files are laid out). A finished top-level container ends with a
// newline, so a document is a whole line of a JSON Lines file too.
//
// Strings: quotes, backslashes and control characters are escaped (\n, \t, ... or \u00XX);
// valid UTF-8 passes through; bytes that are not valid UTF-8 (possible in Linux file names,
// in kernel names) become U+FFFD, so strict parsers such as Python's json still load the file.
//
// Numbers: written in the "C" locale whatever the stream's locale is (no thousands separators,
// '.' as the decimal point). A floating-point number always says how it is written: a fixed
// number of decimals, or a number of significant digits (what `ostream << double` does). JSON
// has no NaN or infinity: a non-finite number is written as null, so readers see "no value"
// instead of failing to parse the file. Writers for which a missing number would be wrong (the
// COCO files) validate and refuse before writing anything.

#include <cstdint>
#include <ios>
#include <locale>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <vector>

namespace libreyolo::core::util {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, int indent = 2);
  ~JsonWriter();  // gives the stream its locale and number formatting back
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object(bool inline_container = false);
  JsonWriter& end_object();
  JsonWriter& begin_array(bool inline_container = false);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  // Any integer but bool and char (those are not numbers in intent).
  template <class Integer, std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool> &&
                                                !std::is_same_v<Integer, char>,
                                            int> = 0>
  JsonWriter& value(Integer number) {
    return integer(static_cast<std::int64_t>(number));
  }
  // Fixed point, `decimals` digits after the point: 2.50 for (2.5, 2). Non-finite: null.
  JsonWriter& value(double number, int decimals);
  // `digits` significant digits, an exponent when very large or small: 0.000123, 1.5e+09.
  // Non-finite: null.
  JsonWriter& value_general(double number, int digits = 6);
  // The shortest text that reads back as the same double, as Python's json writes floats:
  // 0.1, 1e-05, 2.5, 3.0. Non-finite: null.
  JsonWriter& value_exact(double number);
  // A double must say how it is written: value(x, decimals), value_general(x) or value_exact(x).
  JsonWriter& value(double number) = delete;
  JsonWriter& null();

  // key(name).value(v) in one call.
  template <class T>
  JsonWriter& member(std::string_view name, const T& v) {
    return key(name).value(v);
  }
  JsonWriter& member(std::string_view name, double number, int decimals) { return key(name).value(number, decimals); }
  JsonWriter& member_general(std::string_view name, double number, int digits = 6) {
    return key(name).value_general(number, digits);
  }
  JsonWriter& member_exact(std::string_view name, double number) { return key(name).value_exact(number); }

 private:
  struct Level {
    char close;  // '}' or ']'
    bool inline_container;
    bool empty = true;
  };
  void separate();
  void before_value();
  JsonWriter& integer(std::int64_t number);
  JsonWriter& open(char bracket, bool inline_container);
  JsonWriter& close(char bracket);
  void newline();

  std::ostream& out_;
  int indent_;
  std::vector<Level> levels_;
  bool after_key_ = false;
  // The stream's own settings, restored by the destructor.
  std::locale saved_locale_;
  std::ios_base::fmtflags saved_flags_;
  std::streamsize saved_precision_;
};

}  // namespace libreyolo::core::util
