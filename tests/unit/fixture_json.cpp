#include "fixture_json.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace libreyolo::test {

const Json& Json::operator[](const std::string& key) const {
  for (const auto& [name, value] : fields)
    if (name == key) return value;
  throw std::runtime_error("JSON: no field " + key);
}

bool Json::has(const std::string& key) const {
  return std::any_of(fields.begin(), fields.end(), [&](const auto& field) { return field.first == key; });
}

namespace {

class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  Json document() {
    Json value = read();
    skip();
    if (i_ != s_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    skip();
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) fail("bad escape");
        c = s_[i_++];
        if (c == 'u') fail("\\u escapes are not supported");
        if (c == 'n') c = '\n';
        if (c == 't') c = '\t';
      }
      out += c;
    }
    expect('"');
    return out;
  }
  // Reads the comma-separated elements of an array or object up to `close`.
  template <class ReadOne>
  void elements(char close, ReadOne read_one) {
    if (peek() == close) {
      ++i_;
      return;
    }
    for (;;) {
      read_one();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(close);
      return;
    }
  }
  Json read() {
    Json value;
    const char c = peek();
    if (c == '{') {
      ++i_;
      value.kind = Json::Kind::object;
      elements('}', [&] {
        auto key = string();
        expect(':');
        value.fields.emplace_back(std::move(key), read());
      });
    } else if (c == '[') {
      ++i_;
      value.kind = Json::Kind::array;
      elements(']', [&] { value.items.push_back(read()); });
    } else if (c == '"') {
      value.kind = Json::Kind::string;
      value.text = string();
    } else {
      for (const char* word : {"true", "false", "null"}) {
        if (s_.compare(i_, std::strlen(word), word) == 0) {
          i_ += std::strlen(word);
          value.kind = word[0] == 'n' ? Json::Kind::null : Json::Kind::boolean;
          value.number = word[0] == 't' ? 1.0 : 0.0;
          return value;
        }
      }
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      value.kind = Json::Kind::number;
      value.number = std::strtod(begin, &end);
      if (end == begin) fail("bad value");
      i_ += static_cast<size_t>(end - begin);
    }
    return value;
  }

  const std::string& s_;
  size_t i_ = 0;
};


}  // namespace

Json parse_json(const std::string& text) { return Reader(text).document(); }

}  // namespace libreyolo::test
