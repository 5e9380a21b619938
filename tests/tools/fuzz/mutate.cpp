#include "mutate.hpp"

#include <algorithm>
#include <array>

namespace libreyolo::test::fuzz {
namespace {

// Values that sit on the edges of integer fields (sizes, lengths, counts).
constexpr std::array<std::uint8_t, 8> kEdgeBytes = {0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF, 0x20, 0x0A};

std::size_t below(std::mt19937_64& rng, std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); }

void flip_bit(Bytes& b, std::mt19937_64& rng) {
  if (!b.empty()) b[below(rng, b.size())] ^= static_cast<char>(1u << below(rng, 8));
}

void set_byte(Bytes& b, std::mt19937_64& rng) {
  if (b.empty()) return;
  const bool edge = rng() % 2 == 0;
  b[below(rng, b.size())] = static_cast<char>(edge ? kEdgeBytes[below(rng, kEdgeBytes.size())] : rng() & 0xFF);
}

void insert_bytes(Bytes& b, std::mt19937_64& rng) {
  Bytes extra(1 + below(rng, 8), '\0');
  for (auto& c : extra) c = static_cast<char>(rng() & 0xFF);
  b.insert(below(rng, b.size() + 1), extra);
}

void delete_range(Bytes& b, std::mt19937_64& rng) {
  if (b.empty()) return;
  const std::size_t at = below(rng, b.size());
  b.erase(at, 1 + below(rng, std::min<std::size_t>(16, b.size() - at)));
}

void duplicate_range(Bytes& b, std::mt19937_64& rng) {
  if (b.empty() || b.size() > (1u << 16)) return;
  const std::size_t at = below(rng, b.size());
  const Bytes chunk = b.substr(at, 1 + below(rng, 32));
  b.insert(below(rng, b.size() + 1), chunk);
}

void truncate(Bytes& b, std::mt19937_64& rng) { b.resize(below(rng, b.size() + 1)); }

// The head of this input and the tail of another.
void splice(Bytes& b, const std::vector<Bytes>& corpus, std::mt19937_64& rng) {
  if (corpus.empty()) return;
  const Bytes& other = corpus[below(rng, corpus.size())];
  b = b.substr(0, below(rng, b.size() + 1)) + other.substr(below(rng, other.size() + 1));
}

void insert_token(Bytes& b, const std::vector<Bytes>& tokens, std::mt19937_64& rng) {
  if (!tokens.empty()) b.insert(below(rng, b.size() + 1), tokens[below(rng, tokens.size())]);
}

}  // namespace

Bytes mutate(const Bytes& input, const std::vector<Bytes>& corpus, const std::vector<Bytes>& tokens,
             std::mt19937_64& rng) {
  Bytes out = input;
  const std::size_t count = 1 + below(rng, 4);
  for (std::size_t i = 0; i < count; ++i) {
    switch (below(rng, 10)) {
      case 0: case 1: flip_bit(out, rng); break;
      case 2: case 3: set_byte(out, rng); break;
      case 4: insert_bytes(out, rng); break;
      case 5: delete_range(out, rng); break;
      case 6: duplicate_range(out, rng); break;
      case 7: truncate(out, rng); break;
      case 8: splice(out, corpus, rng); break;
      default: insert_token(out, tokens, rng); break;
    }
  }
  return out;
}

}  // namespace libreyolo::test::fuzz
