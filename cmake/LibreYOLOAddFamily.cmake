# libreyolo_add_family(<name> SOURCES <files...> [NO_INSTALL])
#
# Builds a model family plugin: a module library named libreyolo_family_<name>.so linked
# against the SDK alone, with hidden visibility so only the two entry points that
# LIBREYOLO_REGISTER_FAMILY exports are visible. Installed to LIBDIR/libreyolo/families, where
# libreyolo-host looks first. Works in this project's tree and, through
# find_package(LibreYOLO), in a third party's.

function(libreyolo_add_family name)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "libreyolo_add_family(${name}): SOURCES is empty")
  endif()
  set(target libreyolo_family_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE LibreYOLO::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX ""  # libreyolo_family_<name>.so
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    # LIBDIR/libreyolo/families/x.so finds LIBDIR/libreyolo_sdk.so two folders up.
    INSTALL_RPATH "$ORIGIN/../.."
    BUILD_RPATH "$<TARGET_FILE_DIR:LibreYOLO::sdk>")
  if(DEFINED LIBREYOLO_FAMILY_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${LIBREYOLO_FAMILY_OUTPUT_DIRECTORY}")
  endif()
  if(COMMAND libreyolo_set_warnings)
    libreyolo_set_warnings(${target})
  endif()
  if(NOT ARG_NO_INSTALL)
    # In this tree GNUInstallDirs' LIBDIR; out of tree the host's (LibreYOLOConfig.cmake sets it).
    if(NOT DEFINED LIBREYOLO_FAMILY_DESTINATION)
      include(GNUInstallDirs)
      set(LIBREYOLO_FAMILY_DESTINATION "${CMAKE_INSTALL_LIBDIR}/libreyolo/families")
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${LIBREYOLO_FAMILY_DESTINATION})
  endif()
endfunction()
