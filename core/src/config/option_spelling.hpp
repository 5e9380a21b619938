#pragma once
// One option per source: the second time a source (the command line, a cfg file) names an
// option, under its own name or an alias, is an error naming both spellings. Private to
// core/src/config/.

#include <map>
#include <string>

namespace libreyolo::core::config {

// Records that `origin` set option `name` (canonical) written as `spelling`; throws core::Error
// when `spelling_of` already holds `name` ("option 'mosaic_prob' is given twice in the command
// line, as 'mosaic' and 'mosaic_prob'").
void refuse_second_spelling(const std::string& name, const std::string& spelling,
                            std::map<std::string, std::string>& spelling_of, const std::string& origin);

}  // namespace libreyolo::core::config
