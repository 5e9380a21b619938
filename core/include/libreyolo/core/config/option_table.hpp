#pragma once
// A command's set of options, with aliases, lookup and "did you mean" suggestions.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/config/option_spec.hpp"

namespace libreyolo::core::config {

class OptionTable {
 public:
  OptionTable& add(OptionSpec spec);
  // `alias` is accepted wherever `target` is (e.g. scale -> mosaic_scale).
  OptionTable& add_alias(const std::string& alias, const std::string& target);

  // Null when unknown. Accepts aliases and '-' for '_' (exist-ok == exist_ok).
  const OptionSpec* find(const std::string& name) const;
  // The spec or an Error naming the key, where it came from and the closest valid key.
  const OptionSpec& require(const std::string& name, const std::string& origin) const;

  const std::vector<OptionSpec>& specs() const { return specs_; }
  const std::map<std::string, std::string>& aliases() const { return aliases_; }

 private:
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::string> aliases_;
};

// The candidate closest to `word` by edit distance, if it is close enough to be a
// plausible typo (distance <= max(2, word length / 3)).
std::optional<std::string> closest_match(const std::string& word,
                                         const std::vector<std::string>& candidates);

// The tables per command, built from the one option list (train_options.cpp).
OptionTable train_options();
OptionTable val_options();          // train's model, data, device, ... (project=runs/val) + conf, iou, max_det, split
OptionTable predict_options();      // model, imgsz, device, amp, ... (project=runs/predict) + source, conf, iou, classes, save*
OptionTable bench_options();        // train options + steps, warmup, json
OptionTable profile_run_options();  // train options + weights, size, repeat

}  // namespace libreyolo::core::config
