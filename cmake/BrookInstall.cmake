include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS brook brook_headers EXPORT BrookTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})  # brook_headers carries the include dir
install(DIRECTORY include/brook DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT BrookTargets NAMESPACE Brook:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Brook)
configure_package_config_file(cmake/BrookConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/BrookConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Brook)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/BrookConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/BrookConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/BrookConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Brook)
