# ctest entry: install + build + run the downstream project (test/downstream).
add_test(NAME downstream-embedding
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/downstream/run.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${LLVM_TOOLS_BINARY_DIR}/FileCheck)
set_tests_properties(downstream-embedding PROPERTIES LABELS "compiler" TIMEOUT 600)
