# Tests of the verbs (RoCE) transport (included from CMakeLists.txt), and the
# fake libibverbs they run against (test/fakeverbs): a shared library with
# libibverbs' symbols that emulates RC queue pairs between processes, loaded
# by the runtime through HCCL_IB_LIB.
if(HCCL_HAVE_IBVERBS_H)
  set(_fv ${PROJECT_SOURCE_DIR}/test/fakeverbs)
  add_library(fakeverbs SHARED
    ${_fv}/Api.cpp ${_fv}/Fabric.cpp ${_fv}/FakeOptions.cpp ${_fv}/Nic.cpp)
  target_compile_options(fakeverbs PRIVATE -Wall -Wextra -Wno-unused-parameter)
  set_target_properties(fakeverbs PROPERTIES
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(fakeverbs PRIVATE Threads::Threads rt)
  target_link_options(fakeverbs PRIVATE "LINKER:--no-undefined")

  foreach(t units fake collectives faults device)
    set(target HcclVerbs${t}Tests)
    add_executable(${target} verbs_${t}_test.cpp)
    target_link_libraries(${target} PRIVATE HcclRuntimeStatic GTest::gtest_main)
    target_compile_options(${target} PRIVATE -Wall -Wno-unused-parameter)
    target_compile_definitions(${target} PRIVATE
      HCCL_FAKEVERBS_LIB="$<TARGET_FILE:fakeverbs>")
    add_dependencies(${target} fakeverbs)
    # Label runtime-verbs: `ctest -L runtime` and `ctest -L verbs` both take
    # them. A test that needs absent hardware says [  SKIPPED ]: ctest reports it
    # as skipped, never as passed.
    gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60
      PROPERTIES LABELS runtime-verbs TIMEOUT 300
                 SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  endforeach()
endif()
