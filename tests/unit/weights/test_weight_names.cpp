// LibreYOLO's weight names and URLs (libreyolo/models/base/model.py, get_download_url; the
// prefixes and sizes of each family's model.py), as the host maps them.
#include <doctest/doctest.h>

#include "libreyolo/core/weights/weight_names.hpp"

using namespace libreyolo::core::weights;

TEST_SUITE("weights") {

TEST_CASE("weights: every family's LibreYOLO names are known, in LibreYOLO's spelling") {
  const std::pair<const char*, const char*> names[] = {
      {"LibreYOLO9t.pt", "LibreYOLO9t"},     {"LibreYOLO9c.pt", "LibreYOLO9c"},
      {"LibreYOLOXn.pt", "LibreYOLOXn"},     {"LibreYOLOXx.pt", "LibreYOLOXx"},
      {"LibreRTMDett.pt", "LibreRTMDett"},   {"LibreRTMDetl.pt", "LibreRTMDetl"},
      {"LibreRTDETRr18.pt", "LibreRTDETRr18"}, {"LibreRTDETRr50m.pt", "LibreRTDETRr50m"},
      {"LibreRTDETRr50.pt", "LibreRTDETRr50"}, {"LibreRTDETRr101.pt", "LibreRTDETRr101"},
      {"LibreDFINEn.pt", "LibreDFINEn"},     {"LibreDFINEx.pt", "LibreDFINEx"},
      // LibreYOLO lower-cases the name before matching; the URL keeps its own spelling.
      {"libreyolo9s.pt", "LibreYOLO9s"},     {"LIBRERTDETRR34.PT", "LibreRTDETRr34"},
  };
  for (const auto& [given, stem] : names) {
    CAPTURE(given);
    const auto known = known_weights(given);
    REQUIRE(known);
    CHECK(known->stem == stem);
    CHECK(known->file_name == std::string(stem) + ".pt");
  }
}

TEST_CASE("weights: names LibreYOLO does not publish for these families are unknown") {
  for (const char* name : {"best.pt", "LibreYOLO9.pt", "LibreYOLO9q.pt", "LibreYOLO9s.pth", "LibreYOLO9s",
                           "LibreYOLO9s-seg.pt", "LibreYOLOXs2.pt", "LibreRTDETRs.pt", "LibreDFINEt.pt",
                           "my-LibreYOLO9s.pt", "LibreYOLONASs.pt", "yolo9s.pt", ""}) {
    CAPTURE(name);
    CHECK_FALSE(known_weights(name));
  }
}

TEST_CASE("weights: the URL is LibreYOLO's: one Hugging Face repository per file") {
  const auto yolo9s = *known_weights("LibreYOLO9s.pt");
  CHECK(weights_url(kDefaultWeightsBaseUrl, yolo9s) ==
        "https://huggingface.co/LibreYOLO/LibreYOLO9s/resolve/main/LibreYOLO9s.pt");
  CHECK(weights_url("https://huggingface.co/LibreYOLO", *known_weights("librertdetrr50m.pt")) ==
        "https://huggingface.co/LibreYOLO/LibreRTDETRr50m/resolve/main/LibreRTDETRr50m.pt");
  // A mirror's base, with or without the trailing slash.
  CHECK(weights_url("http://127.0.0.1:8000/", yolo9s) == "http://127.0.0.1:8000/LibreYOLO9s/resolve/main/LibreYOLO9s.pt");
  CHECK(weights_url("http://mirror/x", yolo9s) == "http://mirror/x/LibreYOLO9s/resolve/main/LibreYOLO9s.pt");
}

TEST_CASE("weights: the examples in messages are known names") {
  const auto examples = known_weights_examples();
  CHECK(examples.find("LibreYOLO9s.pt") != std::string::npos);
  std::size_t start = 0;
  int count = 0;
  while (start < examples.size()) {
    auto end = examples.find(", ", start);
    if (end == std::string::npos) end = examples.size();
    CHECK(known_weights(examples.substr(start, end - start)));
    ++count;
    start = end + 2;
  }
  CHECK(count == 5);
}

}  // TEST_SUITE
