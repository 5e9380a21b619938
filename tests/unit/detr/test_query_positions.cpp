// Query selection's input-size check (sdk/detr/query_anchors.hpp): too few encoder positions
// for the queries is the user's input, reported as sdk::UserError, never as a bug.
#include <doctest/doctest.h>

#include "libreyolo/sdk/detr/query_anchors.hpp"
#include "libreyolo/sdk/user_error.hpp"

using libreyolo::sdk::UserError;
using libreyolo::sdk::detr::require_query_positions;

TEST_CASE("query positions: enough positions pass, too few are the user's error naming levels and the factor") {
  CHECK_NOTHROW(require_query_positions({{16, 16}, {8, 8}}, 300));  // D-FINE-n at 256 px: 320 positions
  CHECK_NOTHROW(require_query_positions({{10, 30}}, 300));          // exactly enough
  try {
    require_query_positions({{14, 14}, {7, 7}}, 300);  // D-FINE-n at 224 px: 245 positions
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK(e.why() == "its encoder has 245 positions (14 x 14 + 7 x 7), fewer than the 300 queries it selects");
    CHECK(std::string(e.what_to_do()).find("at least 1.11x larger") != std::string::npos);  // sqrt(300 / 245)
    CHECK(std::string(e.what()).find("the input is too small for this model") == 0);
  }
}
