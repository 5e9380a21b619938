#include "test_paths.hpp"

namespace libreyolo::test_paths {

const char* source_dir() { return LIBREYOLO_TEST_SOURCE_DIR; }
const char* family_dir() { return LIBREYOLO_TEST_FAMILY_DIR; }
const char* fixture_plugin_dir() { return LIBREYOLO_TEST_FIXTURE_PLUGIN_DIR; }
const char* ddp_worker() { return LIBREYOLO_TEST_DDP_WORKER; }
const char* ddp_check() { return LIBREYOLO_TEST_DDP_CHECK; }

}  // namespace libreyolo::test_paths
