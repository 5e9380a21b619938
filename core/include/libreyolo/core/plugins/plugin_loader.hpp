#pragma once
// Finds and loads family plugins with Boost.DLL. Search order (first claim of a family name
// wins; later claims are refused with a warning naming both files):
//   1. --plugin-dir / plugin_dir=         (explicit, so it can shadow the rest)
//   2. $LIBREYOLO_PLUGIN_PATH             (colon-separated)
//   3. lib/libreyolo/families next to the binary (<exe>/../lib/... for an install or a build)
// A plugin that is not a library, lacks an entry point, was built against another ABI, or
// throws while registering is refused with one warning; the others still load. The host first
// has each file scanned in a child process (plugin_isolation.hpp), so that a plugin that
// crashes, hangs or exits is refused too instead of ending the host.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "libreyolo/core/plugins/family_registry.hpp"

namespace libreyolo::core::plugins {

// The folders to search, in order, without duplicates; folders that do not exist are kept
// (loading skips them) so `families` can show where it looked.
std::vector<std::filesystem::path> plugin_search_path(
    const std::vector<std::filesystem::path>& explicit_dirs, const char* env_value,
    const std::filesystem::path& executable_dir);

// The folder the running binary lives in.
std::filesystem::path executable_dir();

// The ABI stamp this host was compiled with (sdk-abi=..;torch=..;cxx-abi=..).
const char* host_abi_stamp();

// Why a plugin's stamp is refused, or nullopt when it matches. Names the differing fields.
std::optional<std::string> abi_mismatch(const std::string& plugin_stamp,
                                        const std::string& host_stamp);

// Loads one file into the registry (or records why not). Logs one warning on refusal.
void load_plugin(const std::filesystem::path& file, FamilyRegistry& registry);

// Loads every plugin file (*.so) found in `dirs`, in sorted order per folder, into this
// process: a plugin that crashes takes the process with it. The host loads through
// load_plugins_isolated (plugin_isolation.hpp); this is the scanner's and the tests' way.
FamilyRegistry load_plugins(const std::vector<std::filesystem::path>& dirs);

}  // namespace libreyolo::core::plugins
