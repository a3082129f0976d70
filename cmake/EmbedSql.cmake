# predlake_embed_sql(target OUT_CPP file1.sql ...) turns .sql files into a generated C++ source that
# defines `std::string_view predlake::sql::Get(std::string_view name)` entries, one per file stem.
function(predlake_embed_sql out_var namespace)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${namespace}_embedded_sql.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${namespace} "-DFILES=${ARGN}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSqlScript.cmake
    DEPENDS ${ARGN} ${PROJECT_SOURCE_DIR}/cmake/EmbedSqlScript.cmake
    COMMENT "Embedding SQL for ${namespace}")
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
