# hccl-test's tests: unit tests of its parser/layouts/reference (no runtime
# needed) and, once libhccl exists, small end-to-end invocations.
set(_ht ${PROJECT_SOURCE_DIR}/tools/hccl-test/test)
if(TARGET HcclTestCore)
  add_executable(HcclTestToolTests ${_ht}/options_test.cpp
    ${_ht}/layout_test.cpp)
  target_link_libraries(HcclTestToolTests PRIVATE HcclTestCore
    GTest::gtest_main)
  gtest_discover_tests(HcclTestToolTests DISCOVERY_TIMEOUT 60)
endif()
