# Install layout:
#   bin/libreyolo-host
#   lib/libreyolo_sdk.so*             the SDK library
#   lib/libreyolo/families/*.so       family plugins
#   include/libreyolo/sdk/*.hpp       the public SDK headers (never core's)
#   lib/cmake/LibreYOLO/              package config: LibreYOLO::sdk + libreyolo_add_family()
#   share/libreyolo/datasets/         the bundled sample dataset

include(CMakePackageConfigHelpers)

install(TARGETS libreyolo_sdk EXPORT LibreYOLOTargets
        LIBRARY DESTINATION lib
        INCLUDES DESTINATION include)
install(DIRECTORY sdk/include/libreyolo DESTINATION include)
# The scanner beside the host: the host runs it from its own folder (plugin_isolation.hpp).
install(TARGETS libreyolo-host libreyolo-plugin-scanner RUNTIME DESTINATION bin)
install(DIRECTORY datasets/ DESTINATION share/libreyolo/datasets)

install(EXPORT LibreYOLOTargets NAMESPACE LibreYOLO:: DESTINATION lib/cmake/LibreYOLO)
configure_package_config_file(cmake/LibreYOLOConfig.cmake.in
  "${PROJECT_BINARY_DIR}/LibreYOLOConfig.cmake" INSTALL_DESTINATION lib/cmake/LibreYOLO)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/LibreYOLOConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/LibreYOLOConfig.cmake"
  "${PROJECT_BINARY_DIR}/LibreYOLOConfigVersion.cmake"
  cmake/LibreYOLOAddFamily.cmake
  DESTINATION lib/cmake/LibreYOLO)
