# predlake_embed_sql(target OUT_CPP file1.sql ...) turns .sql files into a generated C++ source that
# defines `std::string_view predlake::sql::Get(std::string_view name)` entries, one per file stem.
function(predlake_embed_sql out_var namespace)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${namespace}_embedded_sql.cpp)
  string(REPLACE ";" "|" files_arg "${ARGN}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${namespace} "-DFILES=${files_arg}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSqlScript.cmake
    DEPENDS ${ARGN} ${PROJECT_SOURCE_DIR}/cmake/EmbedSqlScript.cmake
    COMMENT "Embedding SQL for ${namespace}"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
