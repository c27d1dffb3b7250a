# `cmake --install`: headers (ours and TableGen's), .td files, libraries,
# tools and a CMake package config, so a downstream MLIR project can
#   find_package(MLIR REQUIRED CONFIG)
#   find_package(HcclMlir REQUIRED CONFIG)
#   target_link_libraries(my-opt PRIVATE HcclMlir::Passes HcclMlir::CommDialect MLIR)
# The compiler libraries do not pin an MLIR link (static MLIRIR or
# libMLIR.so): the embedding project links the MLIR it already uses.
include(CMakePackageConfigHelpers)
set(HCCL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/HcclMlir)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")

set(_hccl_exported HcclSchedule hccl HcclGraph HcclReduce HcclCopy HcclConfig)

if(HCCL_ENABLE_COMPILER)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/include/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.inc")
  # Every .td of the dialect: CommOps.td includes the others, so a listed
  # subset breaks a downstream `include "CommOps.td"` (test/downstream).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/dialects/comm/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hccl-mlir/Dialect/Comm
    FILES_MATCHING PATTERN "*.td")
  install(FILES ${PROJECT_SOURCE_DIR}/passes/Passes.td
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hccl-mlir/Passes)
  list(APPEND _hccl_exported HcclCommDialect HcclStableHLODialect HcclPasses
    HcclTranslate)
endif()

install(TARGETS ${_hccl_exported} EXPORT HcclMlirTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT HcclMlirTargets NAMESPACE HcclMlir::
  DESTINATION ${HCCL_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/HcclMlirConfig.cmake.in
  ${PROJECT_BINARY_DIR}/HcclMlirConfig.cmake
  INSTALL_DESTINATION ${HCCL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/HcclMlirConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/HcclMlirConfig.cmake
  ${PROJECT_BINARY_DIR}/HcclMlirConfigVersion.cmake
  DESTINATION ${HCCL_CMAKE_DIR})
