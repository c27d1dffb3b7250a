# Helpers shared by the subdirectories.

# Warnings for every target of ours: -Wall -Wextra as LLVM builds itself
# (without -Wunused-parameter: interface overrides and callbacks name what
# they ignore; without -Wmissing-field-initializers: `{30}` for a struct
# with default member initializers is the point of them), errors unless
# HCCLMLIR_WERROR is OFF. The top CMakeLists.txt
# calls hccl_apply_warnings once, after every subdirectory, and it walks
# them all, so a new target cannot be missed. Third-party headers (LLVM,
# MLIR, GTest, torch) come in as SYSTEM includes and do not warn.
option(HCCLMLIR_WERROR "Treat warnings as errors in hccl-mlir's own targets" ON)
function(hccl_apply_warnings dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      target_compile_options(${t} PRIVATE
        $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wno-unused-parameter
          -Wno-missing-field-initializers>
        $<$<AND:$<COMPILE_LANGUAGE:C,CXX>,$<BOOL:${HCCLMLIR_WERROR}>>:-Werror>)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    hccl_apply_warnings(${d})
  endforeach()
endfunction()

# Compiler-side targets: LLVM/MLIR are built without exceptions, and MLIR's
# headers need their include paths. Use for everything that includes MLIR.
function(hccl_compiler_target target)
  target_include_directories(${target} SYSTEM PUBLIC
    $<BUILD_INTERFACE:${LLVM_INCLUDE_DIRS}>
    $<BUILD_INTERFACE:${MLIR_INCLUDE_DIRS}>)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${HCCL_SOURCE_INCLUDE_DIR}>
    $<BUILD_INTERFACE:${HCCL_BINARY_INCLUDE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # No warning flags here: hccl_apply_warnings gives every target the same
  # set, and CMake drops repeated options, so a -Wno-unused-parameter here
  # would come before that set's -Wextra, which re-enables the warning
  # under clang (clang-tidy's view of the build).
  target_compile_options(${target} PRIVATE -fno-exceptions)
  target_compile_definitions(${target} PUBLIC ${LLVM_DEFINITIONS_LIST})
endfunction()

# The MLIR-free libraries (lib/schedule, runtime) must not pick up LLVM or
# MLIR through their link closure: that is a checked property, not a promise.
# Nor SimGrid, which only tools/hccl-sim links (docs/simulation.md).
function(hccl_check_no_llvm target)
  set(seen "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue t)
    if(t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    if(t MATCHES "SimGrid|simgrid")
      message(FATAL_ERROR "${target} links ${t}: only tools/hccl-sim links SimGrid")
    endif()
    if(NOT TARGET ${t})
      if(t MATCHES "LLVM|MLIR|llvm|mlir")
        message(FATAL_ERROR "${target} links ${t}: lib/schedule and the runtime must stay free of LLVM/MLIR")
      endif()
      continue()
    endif()
    get_target_property(aliased ${t} ALIASED_TARGET)
    if(aliased)
      list(APPEND queue ${aliased})
      continue()
    endif()
    if(t MATCHES "^(LLVM|MLIR)")
      message(FATAL_ERROR "${target} links ${t}: lib/schedule and the runtime must stay free of LLVM/MLIR")
    endif()
    foreach(prop INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES)
      get_target_property(dirs ${t} ${prop})
      if(dirs)
        foreach(d ${dirs})
          if(d MATCHES "llvm-[0-9]+|/mlir")
            message(FATAL_ERROR "${t} has LLVM/MLIR include path ${d}: lib/schedule and the runtime must stay free of LLVM/MLIR")
          endif()
        endforeach()
      endif()
    endforeach()
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${t} ${prop})
      if(libs)
        foreach(l ${libs})
          if(NOT l MATCHES "^\\$<")
            list(APPEND queue ${l})
          endif()
        endforeach()
      endif()
    endforeach()
  endwhile()
endfunction()
