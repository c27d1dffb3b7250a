# hccl-test's tests: unit tests of its parser/layouts/reference (no runtime
# needed) and small end-to-end invocations through libhccl.
set(_ht ${PROJECT_SOURCE_DIR}/tools/hccl-test/test)
add_executable(HcclTestToolTests ${_ht}/options_test.cpp
  ${_ht}/layout_test.cpp ${_ht}/cache_evict_test.cpp ${_ht}/launcher_test.cpp)
target_link_libraries(HcclTestToolTests PRIVATE HcclTestCore
  GTest::gtest_main)
gtest_discover_tests(HcclTestToolTests DISCOVERY_TIMEOUT 60)

# End-to-end: small hccl-test runs (2-4 local ranks, a few KB .. 1 MB, -c 1)
# through libhccl, and bad invocations that must fail cleanly.
set(_run ${_ht}/check_run.sh)
set(_bin $<TARGET_FILE:hccl-test>)
set(_small -n 3 -w 1)
# name, expected exit, regex, check options, then the hccl-test arguments.
function(hccl_test_case name code regex)
  cmake_parse_arguments(A "NO_FAILED" "ENV;FILE;FILE_REGEX" "COMMAND_NAME"
    ${ARGN})
  set(opts)
  if(A_NO_FAILED)
    list(APPEND opts --no-failed)
  endif()
  if(A_FILE)
    list(APPEND opts --file ${A_FILE} ${A_FILE_REGEX})
  endif()
  if(A_COMMAND_NAME) # one of hccl_test's binary names, then its flags
    set(cmd ${A_COMMAND_NAME} ${A_UNPARSED_ARGUMENTS})
  else()
    set(cmd ${_bin} ${A_UNPARSED_ARGUMENTS})
  endif()
  if(A_ENV)
    set(cmd env ${A_ENV} ${cmd})
  endif()
  add_test(NAME hccl-test.${name}
    COMMAND ${_run} ${code} ${regex} ${opts} -- ${cmd})
  set_tests_properties(hccl-test.${name} PROPERTIES TIMEOUT 120
    LABELS "hccl-test;multiprocess" PROCESSORS 2)
endfunction()

set(_ok "^1048576 +\\| [0-9.]+ +\\| [0-9.]+ +\\| success")
hccl_test_case(all_reduce_p2 0 "${_ok}" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2)
hccl_test_case(all_reduce_p3_fp16 0 "${_ok}" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 3 -d fp16)
hccl_test_case(all_reduce_p4_bf16_prod 0 "${_ok}" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 4 -d bfp16 -o prod)
hccl_test_case(all_reduce_p1 0 "^65536 .*\\| success" NO_FAILED
  all_reduce -b 64K -e 64K ${_small} -p 1)
hccl_test_case(all_reduce_count0 0 "^0 +\\|.*\\| success" NO_FAILED
  all_reduce -b 0 -e 0 ${_small} -p 2)
# Sizes aligned to the ranks as hccl_test aligns them: 1023, 32736, 1047552.
hccl_test_case(all_gather_p3_int8 0 "^1047552 .*\\| success" NO_FAILED
  all_gather -b 1K -e 1M -f 32 ${_small} -p 3 -d int8)
hccl_test_case(reduce_scatter_p3_min 0 "^1047552 .*\\| success" NO_FAILED
  reduce_scatter -b 1K -e 1M -f 32 ${_small} -p 3 -d int32 -o min)
hccl_test_case(broadcast_root2 0 "${_ok}" NO_FAILED
  broadcast -b 1K -e 1M -f 32 ${_small} -p 3 -r 2 -d fp64)
hccl_test_case(reduce_root1_max 0 "${_ok}" NO_FAILED
  reduce -b 1K -e 1M -f 32 ${_small} -p 3 -r 1 -o max -d uint16)
hccl_test_case(alltoall_p4 0 "${_ok}" NO_FAILED
  alltoall -b 1K -e 1M -f 32 ${_small} -p 4 -d uint64)
hccl_test_case(alltoallv_p3 0 "\\| success" NO_FAILED
  alltoallv -b 1K -e 1M -f 32 ${_small} -p 3)
hccl_test_case(tcp_transport 0 "${_ok}" NO_FAILED ENV HCCL_TRANSPORT=tcp
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2)
hccl_test_case(sync_malloc 0 "blocking calls.*" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2 --sync --malloc)
hccl_test_case(csv 0 "success" NO_FAILED
  FILE ${CMAKE_CURRENT_BINARY_DIR}/hccl-test-rows.csv
  FILE_REGEX "^all_reduce,fp32,sum,2,1048576,262144,"
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2
  --csv ${CMAKE_CURRENT_BINARY_DIR}/hccl-test-rows.csv)
hccl_test_case(no_check 0 "\\| NULL " all_reduce -b 4K -e 4K ${_small}
  -p 2 -c 0)
# Cold calls, held by the calling thread and by a task on the stream: right
# results either way.
hccl_test_case(cold_calls_host 0 "^65536 .*\\| success" NO_FAILED
  all_reduce -b 1K -e 64K -f 8 ${_small} -p 2 --gap-us 300)
hccl_test_case(cold_calls_ahead 0 "^65536 .*\\| success" NO_FAILED
  all_reduce -b 1K -e 64K -f 8 ${_small} -p 2 --gap-us 300 --issue ahead)
# Calls from memory (each rank writes 8 MiB first): right results, on a
# stream and blocking.
hccl_test_case(flushed_calls 0 "^1048576 .*\\| success" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2 --flush-mib 8)
hccl_test_case(flushed_calls_sync 0 "^65536 .*\\| success" NO_FAILED
  reduce_scatter -b 1K -e 64K -f 8 ${_small} -p 2 --flush-mib 8 --sync)
# Local ranks share one clock (their boot ids agree): each call is timed
# from the last rank's start, not a rank's own.
hccl_test_case(flushed_calls_one_clock 0
  "timed from the last rank's start to the last rank's end" NO_FAILED
  all_gather -b 1K -e 64K -f 8 ${_small} -p 3 --flush-mib 4)
# Calls from memory with only their buffers evicted: right results, on a
# stream and blocking, and the header says which way.
hccl_test_case(evicted_calls 0 "^1048576 .*\\| success" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2 --evict-buffers)
hccl_test_case(evicted_calls_sync 0 "^65536 .*\\| success" NO_FAILED
  reduce_scatter -b 1K -e 64K -f 8 ${_small} -p 2 --evict-buffers --sync)
hccl_test_case(evicted_calls_say_so 0
  "calls from memory \\(each rank evicts its send and receive buffers" NO_FAILED
  broadcast -b 1K -e 4K -f 4 ${_small} -p 2 --evict-buffers)
# Calls from memory queued at once, each behind a stream task that evicts
# (or flushes): right results with more ranks than cores, and the header
# says so.
hccl_test_case(evicted_calls_queued 0 "^1048576 .*\\| success" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 3 --evict-buffers --issue ahead)
hccl_test_case(flushed_calls_queued 0 "^65536 .*\\| success" NO_FAILED
  reduce_scatter -b 1K -e 64K -f 8 ${_small} -p 2 --flush-mib 4 --issue ahead)
hccl_test_case(queued_calls_say_so 0
  "queued at once, each behind a stream task that does so and a barrier on the stream, and followed by another" NO_FAILED
  all_gather -b 1K -e 4K -f 4 ${_small} -p 2 --evict-buffers --issue ahead)
# -n 0 (hccl_test accepts it): nothing queued, nothing timed, no hang.
hccl_test_case(queued_calls_zero_iters 0 "^4096 +\\| 0\\.00 " NO_FAILED
  all_reduce -b 1K -e 4K -f 4 -n 0 -w 1 -p 2 --evict-buffers --issue ahead)

# hccl_test's binary names and flag semantics.
set(_dir $<TARGET_FILE_DIR:hccl-test>)
hccl_test_case(binary_scatter_root1 0 "^32736 .*\\| success" NO_FAILED
  COMMAND_NAME ${_dir}/scatter_test -b 1K -e 32K -f 32 ${_small} -p 3 -r 1)
hccl_test_case(binary_all_gatherv 0 "^1047552 .*\\| success" NO_FAILED
  COMMAND_NAME ${_dir}/all_gatherv_test -b 1K -e 1M -f 32 ${_small} -p 3)
hccl_test_case(binary_reduce_scatterv_prod 0 "^32736 .*\\| success"
  NO_FAILED COMMAND_NAME ${_dir}/reduce_scatterv_test -b 1K -e 32K -f 32
  ${_small} -p 3 -o prod -d fp32)
hccl_test_case(binary_broadcast_root1 0 "^65536 .*\\| success" NO_FAILED
  COMMAND_NAME ${_dir}/broadcast_test -b 64K -e 64K ${_small} -p 2 -r 1)
hccl_test_case(zero_copy 0 "^1048576 .*\\| success" NO_FAILED
  all_reduce -b 1K -e 1M -f 32 ${_small} -p 2 -z 1)
hccl_test_case(fractional_factor 0 "^2250 .*\\| success" NO_FAILED
  all_reduce -b 1000 -e 3000 -f 1.5 ${_small} -p 2)
hccl_test_case(step_and_factor_warn 0 "Warning: \\[-f,--stepfactor\\] and"
  NO_FAILED all_reduce -b 1K -e 4K -i 1K -f 2 ${_small} -p 2)
hccl_test_case(zero_iters 0 "^4096 +\\| 0\\.00 " NO_FAILED
  all_reduce -b 4K -e 4K -n 0 -w 1 -i 0 -p 2)
hccl_test_case(hex_size_header 0
  "^data_size\\(Bytes\\): \\| aveg_time\\(us\\): \\| alg_bandwidth\\(GB/s\\): \\| check_result: \\| bus_bandwidth\\(GB/s\\):$"
  NO_FAILED all_reduce -b 0x1000 -e 0x1000 ${_small} -p 2)

# Bad flags: one line, exit status 2, nothing started.
hccl_test_case(bad_size 2 "^hccl-test: -b abc: expected a size" all_reduce
  -b abc)
hccl_test_case(bad_collective 2 "^hccl-test: unknown collective 'allreduc'"
  allreduc)
hccl_test_case(bad_dtype 2 "^hccl-test: -d fp8: expected one of"
  all_reduce -d fp8)
hccl_test_case(bad_root 2 "^hccl-test: -r 5: the root must be below"
  broadcast -r 5 -p 2)
hccl_test_case(missing_value 2 "^hccl-test: option -n needs a value"
  all_reduce -n)
hccl_test_case(no_collective 2 "^hccl-test: missing collective")
# Bad environment: init fails with the variable named.
hccl_test_case(bad_env 1 "HCCL_BUFFSIZE=abc: expected an integer >= 1"
  ENV HCCL_BUFFSIZE=abc all_reduce -b 1K -e 1K ${_small} -p 2)
hccl_test_case(bad_algo 1 "HCCL_ALGO=level9"
  all_reduce -b 1K -e 1K ${_small} -p 2 --algo level9:ring)

# Under Open MPI's launcher: one process per rank, rendezvous through the
# per-job root info file hccl-test sets up.
find_program(_mpirun mpirun)
if(_mpirun)
  add_test(NAME hccl-test.mpirun
    COMMAND ${_run} 0 "${_ok}" --no-failed -- env OMPI_ALLOW_RUN_AS_ROOT=1
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${_mpirun} --oversubscribe
      --mca btl self,vader -n 2 ${_bin} all_reduce -b 1K -e 1M -f 32
      ${_small} -p 2)
  set_tests_properties(hccl-test.mpirun PROPERTIES TIMEOUT 120
    LABELS "hccl-test;multiprocess" PROCESSORS 2)
endif()
