#pragma once
// One line registers a family plugin:
//
//   LIBREYOLO_REGISTER_FAMILY(MyFamily)   // MyFamily : libreyolo::sdk::Family
//
// It exports two C symbols that the host looks up with Boost.DLL:
//   libreyolo_family_abi_stamp()  what the plugin was compiled against (checked first)
//   libreyolo_family_create()     a new MyFamily, owned by the host from then on
// The stamp is expanded here, in the plugin's own translation unit (see abi.hpp).

#include "libreyolo/sdk/abi.hpp"
#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/family.hpp"

#define LIBREYOLO_FAMILY_ABI_STAMP_SYMBOL "libreyolo_family_abi_stamp"
#define LIBREYOLO_FAMILY_CREATE_SYMBOL "libreyolo_family_create"

#define LIBREYOLO_REGISTER_FAMILY(FamilyClass)                                           \
  extern "C" LIBREYOLO_PLUGIN_EXPORT const char* libreyolo_family_abi_stamp() {          \
    return LIBREYOLO_ABI_STAMP;                                                          \
  }                                                                                      \
  extern "C" LIBREYOLO_PLUGIN_EXPORT ::libreyolo::sdk::Family* libreyolo_family_create() { \
    return new FamilyClass();                                                            \
  }
