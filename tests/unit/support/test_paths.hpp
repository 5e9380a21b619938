#pragma once
// Where the unit tests find the source tree, the built family plugins, the fixture plugins and
// the helper executables. The paths are compiled into test_paths.cpp alone: were they defines
// of every test file, each checkout (a helper's worktree, CI's clone) would hash every file
// differently and miss ccache, though the code is the same.

namespace libreyolo::test_paths {

const char* source_dir();          // the project's root
const char* family_dir();          // the built libreyolo_family_*.so
const char* fixture_plugin_dir();  // tests/fixtures/plugins, built
const char* ddp_worker();          // tests/tools/ddp_test_worker.cpp, built
const char* ddp_check();           // tests/tools/ddp_check.cpp, built

}  // namespace libreyolo::test_paths
