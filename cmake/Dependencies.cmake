# DuckDB: fetched and hash-checked by scripts/fetch_duckdb.sh into third_party/duckdb (never committed),
# with the previous release's library beside it for the tests (third_party/duckdb-<version>). The script
# runs at every configure (it returns at once when the folders match its pins) and a change of the pins
# reconfigures, so a tree built against an older pin gets the new library in place (the binaries load it
# through their run path).
set(PREDLAKE_DUCKDB_DIR ${PROJECT_SOURCE_DIR}/third_party/duckdb)
set(PREDLAKE_DUCKDB_OLD_DIR ${PROJECT_SOURCE_DIR}/third_party/duckdb-1.4.4)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scripts/fetch_duckdb.sh)
execute_process(COMMAND ${PROJECT_SOURCE_DIR}/scripts/fetch_duckdb.sh RESULT_VARIABLE fetch_rc)
if(NOT fetch_rc EQUAL 0)
  message(FATAL_ERROR "DuckDB could not be fetched; run scripts/install_deps.sh")
endif()
add_library(duckdb SHARED IMPORTED GLOBAL)
set_target_properties(duckdb PROPERTIES
  IMPORTED_LOCATION ${PREDLAKE_DUCKDB_DIR}/lib/libduckdb.so
  IMPORTED_NO_SONAME ON
  INTERFACE_INCLUDE_DIRECTORIES ${PREDLAKE_DUCKDB_DIR}/include)
set(CMAKE_BUILD_RPATH ${PREDLAKE_DUCKDB_DIR}/lib)

find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CURL REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
# Debian's cpp-httplib ships a compiled library and a pkg-config file, no CMake package.
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
add_library(httplib::httplib ALIAS PkgConfig::HTTPLIB)
find_package(Threads REQUIRED)
# mimalloc replaces glibc's malloc in the predlake executable, DuckDB's statements included (not under
# the sanitizers, which bring their own): an hour's `update` spent about a tenth of its CPU in glibc's
# malloc and free, and runs about 9% faster with mimalloc (docs/scale.md).
if(NOT PREDLAKE_SANITIZE)
  find_package(mimalloc CONFIG REQUIRED)
endif()
find_package(GTest REQUIRED)
find_package(benchmark REQUIRED)
