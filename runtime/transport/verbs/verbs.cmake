# The verbs (RoCE) transport, included from runtime/CMakeLists.txt. It needs
# rdma-core's headers at build time only: libibverbs is dlopen()ed at run
# time (HCCL_IB_LIB), so libhccl links nothing new.
include(CheckIncludeFileCXX)
check_include_file_cxx(infiniband/verbs.h HCCL_HAVE_IBVERBS_H)
set(_verbs ${CMAKE_CURRENT_LIST_DIR})
target_sources(HcclRuntimeObjects PRIVATE ${_verbs}/LinkNegotiation.cpp)
if(HCCL_HAVE_IBVERBS_H)
  target_sources(HcclRuntimeObjects PRIVATE
    ${_verbs}/GidSelect.cpp
    ${_verbs}/HcaFilter.cpp
    ${_verbs}/IbvApi.cpp
    ${_verbs}/MrCache.cpp
    ${_verbs}/Protocol.cpp
    ${_verbs}/QpAttrs.cpp
    ${_verbs}/VerbsDevice.cpp
    ${_verbs}/VerbsPair.cpp
    ${_verbs}/VerbsTransport.cpp)
  target_compile_definitions(HcclRuntimeObjects PUBLIC HCCL_HAVE_VERBS=1)
else()
  message(STATUS "infiniband/verbs.h not found: the verbs (RoCE) transport is not built")
  target_sources(HcclRuntimeObjects PRIVATE ${_verbs}/VerbsUnavailable.cpp)
endif()
target_link_libraries(HcclRuntimeObjects PUBLIC ${CMAKE_DL_LIBS})
target_link_libraries(hccl PRIVATE ${CMAKE_DL_LIBS})
