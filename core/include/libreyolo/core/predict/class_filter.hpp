#pragma once
// predict's classes= option: which classes to keep, as LibreYOLO's and Ultralytics' predict take
// it (classes=0, classes=0,2, classes=[0, 2]), and class names too (classes=person,dog). The
// filter is applied after the family's post-processing, as LibreYOLO applies it.

#include <string>
#include <vector>

#include "libreyolo/core/eval/types.hpp"

namespace libreyolo::core::predict {

// Empty text: no filter (an empty list, every class kept). Otherwise the class ids, sorted and
// unique. Throws core::Error naming the entry for an id outside [0, names.size()), a name the
// model does not know, or an entry that is neither.
std::vector<int> parse_class_filter(const std::string& text, const std::vector<std::string>& names);

// Drops the detections whose class is not in `keep` (sorted); an empty `keep` keeps all.
void keep_classes(std::vector<eval::Detection>& detections, const std::vector<int>& keep);

}  // namespace libreyolo::core::predict
