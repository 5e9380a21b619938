#pragma once
// The little JSON the COCO files need, written by hand: string escaping and locale-proof
// fixed-point numbers. A JSON library would be a dependency for two flat formats.

#include <ios>
#include <locale>
#include <ostream>
#include <string_view>

namespace libreyolo::core::eval {

// Writes `text` as a quoted JSON string. Quotes, backslashes and control characters are
// escaped; valid UTF-8 passes through; bytes that are not valid UTF-8 (possible in Linux file
// names) become U+FFFD so strict parsers such as Python's json still load the file.
void write_json_string(std::ostream& out, std::string_view text);

// For the lifetime of the guard the stream prints numbers the JSON way: "C" locale (no
// thousands separators, '.' as decimal point) and fixed notation. Restores the stream after.
class JsonNumberStyle {
 public:
  explicit JsonNumberStyle(std::ostream& out);
  ~JsonNumberStyle();
  JsonNumberStyle(const JsonNumberStyle&) = delete;
  JsonNumberStyle& operator=(const JsonNumberStyle&) = delete;

 private:
  std::ostream& out_;
  std::locale locale_;
  std::ios_base::fmtflags flags_;
  std::streamsize precision_;
};

// Fixed-point with `decimals` digits after the point; requires a JsonNumberStyle in scope and a
// finite value (callers validate).
void write_json_number(std::ostream& out, double value, int decimals);

}  // namespace libreyolo::core::eval
