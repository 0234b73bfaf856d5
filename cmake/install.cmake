# `cmake --install` puts the public headers, the shared library and a CMake package, so that
# an outside project does find_package(livetune) and links livetune::livetune.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libLLVM-19 lives outside the default search path: record where it was found.
set_target_properties(livetune PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS livetune EXPORT livetuneTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY api/include/livetune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT livetuneTargets NAMESPACE livetune:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/livetune)
configure_package_config_file(cmake/livetuneConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/livetuneConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/livetune)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/livetuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/livetuneConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/livetuneConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/livetune)
