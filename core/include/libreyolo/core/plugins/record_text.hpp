#pragma once
// One text field of a line-based record (the scanner's answer, the plugin registry cache):
// tabs, newlines and backslashes are escaped, so a file path or an error message with any of
// them stays one field of one line and reads back unchanged.

#include <optional>
#include <string>
#include <vector>

namespace libreyolo::core::plugins {

std::string escape_field(const std::string& text);
// nullopt for a backslash that starts no known escape: the text was not written by
// escape_field (a damaged file).
std::optional<std::string> unescape_field(const std::string& field);

// Splits a line at its tabs (no escaping involved: escaped fields hold no raw tab).
std::vector<std::string> split_fields(const std::string& line);

}  // namespace libreyolo::core::plugins
