#pragma once
// Symbol visibility for the SDK shared library and for family plugins. Plugins are built with
// hidden visibility (libreyolo_add_family sets it) so that only their two entry points are
// exported. Linux only for now (ELF visibility attributes).

#define LIBREYOLO_SDK_API __attribute__((visibility("default")))
#define LIBREYOLO_PLUGIN_EXPORT __attribute__((visibility("default")))
