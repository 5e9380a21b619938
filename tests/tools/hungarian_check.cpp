// Solves assignment problems read from a text file with the SDK's Hungarian solver and prints
// one line per matrix: the column assigned to each row (-1 for none). tests/python/
// hungarian_parity.py writes the input and compares the output with scipy's.
//   hungarian_check INPUT
// INPUT: the matrix count, then per matrix "rows cols" followed by rows * cols costs, row-major,
// whitespace-separated (decimal text that reads back as the intended float32).
#include <libreyolo/sdk/detr/hungarian.hpp>

#include <exception>
#include <fstream>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: hungarian_check INPUT (written by tests/python/hungarian_parity.py)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "hungarian_check: cannot open " << argv[1] << "\n";
    return 2;
  }
  long long count = 0;
  in >> count;
  try {
    for (long long i = 0; i < count; ++i) {
      int64_t rows = 0, cols = 0;
      in >> rows >> cols;
      std::vector<float> cost(static_cast<size_t>(rows * cols));
      for (auto& value : cost) in >> value;
      if (!in) {
        std::cerr << "hungarian_check: matrix " << i << " of " << count << " is truncated or not numeric\n";
        return 2;
      }
      const auto assignment = libreyolo::sdk::detr::solve_linear_assignment(cost.data(), rows, cols, cols);
      for (size_t r = 0; r < assignment.size(); ++r) std::cout << (r ? " " : "") << assignment[r];
      std::cout << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "hungarian_check: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
