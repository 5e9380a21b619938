# D-FINE's criterion as a static library of its own, so that unit tests link it directly
# (tests/unit/dfine/) while the network is written in libreyolo_dfine (CMakeLists.txt); the
# family plugin links both.
add_library(libreyolo_dfine_criterion STATIC
  ${CMAKE_CURRENT_LIST_DIR}/criterion_ground_truth.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matched_pairs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/set_losses.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dfine_criterion.cpp)
# Users include "dfine/<header>": RT-DETR's folder, also on the tests' path, has a
# decoder_outputs.hpp of its own.
target_include_directories(libreyolo_dfine_criterion PUBLIC "${CMAKE_CURRENT_LIST_DIR}/..")
target_link_libraries(libreyolo_dfine_criterion PUBLIC LibreYOLO::sdk)
set_target_properties(libreyolo_dfine_criterion PROPERTIES
  CXX_STANDARD 17
  CXX_STANDARD_REQUIRED ON
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
if(COMMAND libreyolo_set_warnings)
  libreyolo_set_warnings(libreyolo_dfine_criterion)
  libreyolo_use_plugin_torch_pch(libreyolo_dfine_criterion)
endif()
