// The download's progress on stderr: a redrawn line on a terminal, a few lines elsewhere.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "libreyolo/core/weights/download_progress.hpp"

using namespace libreyolo::core::weights;

TEST_SUITE("weights") {

TEST_CASE("weights: progress lines show bytes, percent when the size is known, and the rate") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(845'000) == "845 kB");
  CHECK(format_bytes(12'345'678) == "12.3 MB");
  CHECK(progress_line("a.pt", 12'300'000, 45'600'000ull, 8'100'000, false) ==
        "a.pt: 12.3 MB of 45.6 MB (26%) at 8.1 MB/s");
  CHECK(progress_line("a.pt", 12'300'000, std::nullopt, 8'100'000, true) == "a.pt: 12.3 MB at 8.1 MB/s");
  CHECK(progress_line("a.pt", 50, 100ull, 10, true) == "a.pt: [##########..........] 50 B of 100 B (50%) at 10 B/s");
}

TEST_CASE("weights: off a terminal, progress is a line per quarter and one at the end") {
  std::ostringstream out;
  DownloadProgress progress(out, /*terminal=*/false, "a.pt", 0);
  const auto start = DownloadProgress::Clock::now();
  for (std::uint64_t bytes = 0; bytes <= 1000; bytes += 10) {
    progress.update(bytes, 1000ull, start + std::chrono::milliseconds(bytes));
  }
  progress.finish(true, start + std::chrono::seconds(1));
  const auto text = out.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);  // 25%, 50%, 75%, done
  CHECK(text.find('\r') == std::string::npos);
  CHECK(text.find("a.pt: 1 kB of 1 kB (100%)") != std::string::npos);
}

TEST_CASE("weights: a resumed download's lines start at the quarters still ahead") {
  std::ostringstream out;
  DownloadProgress progress(out, /*terminal=*/false, "a.pt", 600);
  const auto start = DownloadProgress::Clock::now();
  for (std::uint64_t bytes = 600; bytes <= 1000; bytes += 10) progress.update(bytes, 1000ull, start);
  progress.finish(true, start + std::chrono::seconds(1));
  const auto text = out.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);  // 75%, done
  CHECK(text.find("(50%)") == std::string::npos);
  CHECK(text.find("at 400 B/s") != std::string::npos);  // the rate counts this session's bytes only
}

TEST_CASE("weights: on a terminal, progress redraws one line at most ten times a second") {
  std::ostringstream out;
  DownloadProgress progress(out, /*terminal=*/true, "a.pt", 0);
  const auto start = DownloadProgress::Clock::now();
  for (int ms = 0; ms < 1000; ++ms) progress.update(static_cast<std::uint64_t>(ms), 1000ull, start + std::chrono::milliseconds(ms));
  progress.finish(false, start + std::chrono::seconds(1));
  const auto text = out.str();
  const auto redraws = std::count(text.begin(), text.end(), '\r');
  CHECK(redraws >= 5);
  CHECK(redraws <= 12);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);  // the line ends, once
}

}  // TEST_SUITE
