# Writes OUT: a table of (file stem, contents) for every file in FILES, returned by
# predlake::NS::FUNCTION() (cmake/EmbedSql.cmake).
set(body "// Generated from .sql files by cmake/EmbedSqlScript.cmake; do not edit.\n#include \"common/embedded_sql.hpp\"\nnamespace predlake::${NS} {\nconst SqlFiles& ${FUNCTION}() {\n  static const SqlFiles kFiles = {\n")
string(REPLACE "|" ";" FILES "${FILES}")
foreach(f ${FILES})
  get_filename_component(stem ${f} NAME_WE)
  file(READ ${f} content)
  string(APPEND body "    {\"${stem}\", R\"predlake_sql(${content})predlake_sql\"},\n")
endforeach()
string(APPEND body "  };\n  return kFiles;\n}\n}  // namespace predlake::${NS}\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
