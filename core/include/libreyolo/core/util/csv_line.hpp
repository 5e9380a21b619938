#pragma once
// One line of the run's own results.csv split at its commas. The file is ours (plain numbers and
// LibreYOLO's column names, none holding a comma or a quote), so no CSV quoting is handled. A
// trailing comma means a last, empty cell.

#include <string>
#include <vector>

namespace libreyolo::core::util {

std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace libreyolo::core::util
