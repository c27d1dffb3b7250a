# Unit tests of the runtime's reduction kernels and configuration (owned by
# the kernels+tools engineer), included from this folder's CMakeLists.txt.
set(HCCL_KERNEL_TESTS)
add_executable(HcclReduceTests
  ${CMAKE_CURRENT_LIST_DIR}/reduce_types_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_many_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_isa_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_nontemporal_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_copy_test.cpp)
target_link_libraries(HcclReduceTests PRIVATE HcclReduce GTest::gtest_main)
list(APPEND HCCL_KERNEL_TESTS HcclReduceTests)
add_executable(HcclConfigTests
  ${CMAKE_CURRENT_LIST_DIR}/config_numeric_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_text_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_hccl_test.cpp)
target_link_libraries(HcclConfigTests PRIVATE HcclConfig GTest::gtest_main)
# ConfigDocs reads docs/env-vars.md from the source tree.
target_compile_definitions(HcclConfigTests PRIVATE
  HCCL_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
list(APPEND HCCL_KERNEL_TESTS HcclConfigTests)
foreach(t ${HCCL_KERNEL_TESTS})
  target_compile_options(${t} PRIVATE -Wall -Wno-unused-parameter)
  gtest_discover_tests(${t} DISCOVERY_TIMEOUT 60)
endforeach()

# hccl-test's own tests live beside the tool.
include(${PROJECT_SOURCE_DIR}/tools/hccl-test/test/hccl-test-tests.cmake)
