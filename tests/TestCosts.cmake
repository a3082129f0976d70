# Reads tests/test_costs.txt ("<seconds> <test>" lines, written by scripts/test_costs.sh) and defines
# predlake_cost(TEST OUT): the seconds listed for TEST, or 1 for a test the file does not list.
# Included by tests/CMakeLists.txt (the e2e entries, at configure time) and by the CTest include file
# (the discovered unit tests, when CTest runs).
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/test_costs.txt" predlake_cost_lines REGEX "^[0-9.]+ ")
foreach(line IN LISTS predlake_cost_lines)
  string(REGEX MATCH "^([0-9.]+) (.+)$" _ "${line}")
  set("predlake_cost_${CMAKE_MATCH_2}" "${CMAKE_MATCH_1}")
endforeach()
macro(predlake_cost test out)
  if(DEFINED "predlake_cost_${test}")
    set(${out} "${predlake_cost_${test}}")
  else()
    set(${out} 1)
  endif()
endmacro()
