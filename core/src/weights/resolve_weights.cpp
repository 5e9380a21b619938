#include "libreyolo/core/weights/resolve_weights.hpp"

#include <optional>
#include <vector>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/weights/weight_names.hpp"
#include "libreyolo/core/weights/weights_search.hpp"

namespace libreyolo::core::weights {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A name with a folder in it is where the user says the file is: searching other folders for
// its last part would quietly train from some other file of that name.
[[noreturn]] void missing_path(const std::string& model) {
  const auto name = fs::path(model).filename().string();
  std::string what_to_do = "check the path";
  if (known_weights(name)) what_to_do += "; model=" + name + " without a folder is searched for and downloaded";
  throw Error("weights '" + model + "' not found", "no such file", what_to_do);
}

std::string put_it_yourself(const std::string& url, const WeightsEnvironment& env) {
  const std::string into = env.cache_folder.empty() ? "a folder" : env.cache_folder.string();
  return "download it yourself from " + url + " and put it in " + into + " (or set LIBREYOLO_WEIGHTS to its folder)";
}

[[noreturn]] void unknown_name(const std::string& model, const std::vector<SearchPlace>& places) {
  throw Error("weights '" + model + "' not found",
              "looked in " + describe_places(places) + "; it is not a name LibreYOLO publishes (" +
                  known_weights_examples() + ", ...), so it is not downloaded",
              "give the file's path, put it in one of those folders, or set LIBREYOLO_WEIGHTS to its folder; "
              "model=yolo9s (a family and size) trains from scratch");
}

// Why this process may not download `known`, or nullopt when it may.
std::optional<std::string> download_forbidden(const WeightsEnvironment& env, const Downloader& downloader) {
  if (env.offline) return "downloads are off (LIBREYOLO_OFFLINE is set)";
  if (!downloader.available) return "this build has no downloader (it was built without libcurl)";
  if (env.cache_folder.empty()) return "there is no cache folder to download into (neither XDG_CACHE_HOME nor HOME is set)";
  return std::nullopt;
}

ResolvedWeights download_known(const KnownWeights& known, const WeightsEnvironment& env,
                               const Downloader& downloader, const std::vector<SearchPlace>& places) {
  const auto url = weights_url(env.base_url, known);
  if (const auto forbidden = download_forbidden(env, downloader)) {
    throw Error("weights " + known.file_name + " not found", "looked in " + describe_places(places) + "; " + *forbidden,
                put_it_yourself(url, env));
  }
  std::error_code ec;
  fs::create_directories(env.cache_folder, ec);
  if (ec) {
    throw Error("cannot download " + known.file_name, "the cache folder " + env.cache_folder.string() +
                    " cannot be created: " + ec.message(), put_it_yourself(url, env));
  }
  const auto destination = env.cache_folder / known.file_name;
  log::info("downloading ", known.file_name, " from ", url, " into ", env.cache_folder.string());
  const auto outcome = downloader.fetch(url, destination);
  if (!outcome.ok) {
    std::string why = outcome.failure;
    if (outcome.partial_kept) why += "; the part received is kept in " + destination.string() + ".part and resumed next time";
    throw Error("could not download " + known.file_name + " from " + url, why, put_it_yourself(url, env));
  }
  return {destination, "downloaded from " + url + " into the cache (" + env.cache_folder.string() + ")"};
}

}  // namespace

bool looks_like_checkpoint(const std::string& model) { return ends_with(model, ".pt") || ends_with(model, ".pth"); }

Downloader system_downloader() { return {downloader_available(), &download_file}; }

ResolvedWeights resolve_weights(const std::string& model, const WeightsEnvironment& env, const Downloader& downloader) {
  std::error_code ec;
  // Anything that exists as given is what the user meant, even a FIFO or a folder: the
  // checkpoint reader then refuses it by name (util/regular_file), rather than a search for a
  // "missing" file elsewhere.
  if (fs::exists(model, ec)) return {model, ""};
  if (fs::path(model).has_parent_path()) missing_path(model);
  const auto known = known_weights(model);
  std::vector<std::string> names{model};
  if (known && known->file_name != model) names.push_back(known->file_name);
  const auto places = search_places(env);
  if (const auto found = find_weights(names, places)) {
    return {found->file, "found in " + found->place->label + " (" + found->place->folder.string() + ")"};
  }
  if (!known) unknown_name(model, places);
  return download_known(*known, env, downloader, places);
}

}  // namespace libreyolo::core::weights
