#pragma once
// The weight files LibreYOLO publishes, by name: which file names it knows (a family's file-name
// prefix and one of its sizes, e.g. LibreYOLO9s.pt) and the URL it downloads each from. Only
// these names are ever downloaded; any other missing .pt is an error (docs/weights.md).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libreyolo::core::weights {

// LibreYOLO's own host (libreyolo/models/base/model.py, get_download_url):
// <base>/<stem>/resolve/main/<stem>.pt, one Hugging Face repository per weight file.
inline constexpr std::string_view kDefaultWeightsBaseUrl = "https://huggingface.co/LibreYOLO";

struct KnownWeights {
  std::string stem;       // as LibreYOLO spells it: "LibreYOLO9s"
  std::string file_name;  // stem + ".pt"
};

// The LibreYOLO name `file_name` spells (compared without case, like LibreYOLO does), or
// nullopt. Only detection weights of families this host trains: LibreYOLO9{t,s,m,c},
// LibreYOLOX{n,t,s,m,l,x}, LibreRTMDet{t,s,m,l,x}, LibreRTDETR{r18,...,x}, LibreDFINE{n,...,x}.
std::optional<KnownWeights> known_weights(std::string_view file_name);

// Where LibreYOLO downloads `weights` from, under `base_url` (the default or a mirror; a
// trailing '/' is ignored).
std::string weights_url(std::string_view base_url, const KnownWeights& weights);

// A few known names, for messages ("LibreYOLO9s.pt, LibreYOLOXs.pt, ...").
std::string known_weights_examples();

}  // namespace libreyolo::core::weights
