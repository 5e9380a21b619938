# Install layout (GNUInstallDirs: LIBDIR is lib, lib64 or lib/<triplet> as the platform wants):
#   BINDIR/libreyolo-host, libreyolo-plugin-scanner
#   LIBDIR/libreyolo_sdk.so*             the SDK library
#   LIBDIR/libreyolo/families/*.so       family plugins
#   INCLUDEDIR/libreyolo/sdk/*.hpp       the public SDK headers (never core's)
#   LIBDIR/cmake/LibreYOLO/              package config: LibreYOLO::sdk + libreyolo_add_family()
#   DATADIR/libreyolo/datasets/          the bundled sample dataset
# Nothing of the build tree (no CMake cache, no object files) is installed.

include(CMakePackageConfigHelpers)

install(TARGETS libreyolo_sdk EXPORT LibreYOLOTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY sdk/include/libreyolo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The scanner beside the host: the host runs it from its own folder (plugin_isolation.hpp).
install(TARGETS libreyolo-host libreyolo-plugin-scanner RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY datasets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/libreyolo/datasets)

install(EXPORT LibreYOLOTargets NAMESPACE LibreYOLO:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/LibreYOLO)
configure_package_config_file(cmake/LibreYOLOConfig.cmake.in
  "${PROJECT_BINARY_DIR}/LibreYOLOConfig.cmake" INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/LibreYOLO)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/LibreYOLOConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/LibreYOLOConfig.cmake"
  "${PROJECT_BINARY_DIR}/LibreYOLOConfigVersion.cmake"
  cmake/LibreYOLOAddFamily.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/LibreYOLO)
