# Unity builds written by us rather than by CMake: CMake 3.25 includes each source by its absolute
# path, so a second clone at another path hashes differently in ccache and misses. Here each batch
# file includes its sources by their path below the project folder, found through a private -I of the
# project folder, which ccache's base_dir turns into a path relative to the build folder: the same
# text, and the same line markers, in every clone.

set(PREDLAKE_UNITY_BATCH_SIZE 8)

# predlake_unity(target): compiles the target's .cpp files under the project folder a batch at a time,
# in the order the target lists them, once its folder's CMakeLists.txt is done (so that sources added
# after the target was made are batched too). Generated sources (in the build folder) stay as they are.
function(predlake_unity target)
  if(PREDLAKE_UNITY)
    # DEFER evaluates its arguments when the call runs; EVAL puts the name in now.
    cmake_language(EVAL CODE "cmake_language(DEFER CALL predlake_unity_batch [[${target}]])")
  endif()
endfunction()

function(predlake_unity_batch target)
  get_target_property(srcs ${target} SOURCES)
  get_target_property(src_dir ${target} SOURCE_DIR)
  set(batched "")
  foreach(src ${srcs})
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${src_dir} NORMALIZE OUTPUT_VARIABLE abs)
    cmake_path(IS_PREFIX PROJECT_SOURCE_DIR ${abs} NORMALIZE in_project)
    cmake_path(IS_PREFIX PROJECT_BINARY_DIR ${abs} NORMALIZE in_build)
    if(abs MATCHES "\\.cpp$" AND in_project AND NOT in_build)
      list(APPEND batched ${abs})
    endif()
  endforeach()
  list(LENGTH batched count)
  if(count LESS 2)
    return()
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_unity)
  set(unity_files "")
  set(content "")
  set(in_batch 0)
  set(batch 0)
  foreach(abs ${batched})
    cmake_path(RELATIVE_PATH abs BASE_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE rel)
    string(APPEND content "#include \"${rel}\"\n")
    math(EXPR in_batch "${in_batch} + 1")
    if(in_batch EQUAL PREDLAKE_UNITY_BATCH_SIZE)
      file(CONFIGURE OUTPUT ${dir}/unity_${batch}.cpp CONTENT "${content}" @ONLY)
      list(APPEND unity_files ${dir}/unity_${batch}.cpp)
      set(content "")
      set(in_batch 0)
      math(EXPR batch "${batch} + 1")
    endif()
  endforeach()
  if(in_batch GREATER 0)
    file(CONFIGURE OUTPUT ${dir}/unity_${batch}.cpp CONTENT "${content}" @ONLY)
    list(APPEND unity_files ${dir}/unity_${batch}.cpp)
  endif()
  # The sources stay listed (for IDEs and for CMake's dependency scan) but are compiled only through
  # the batch files.
  set_source_files_properties(${batched} TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${unity_files})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()
