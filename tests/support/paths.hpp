// Where a test finds the things outside its executable: the source tree, the reference fixtures,
// the built `predlake` binary and the lake holder. Nothing here is compiled in: each comes from the
// environment (CTest sets it for every test, see tests/CMakeLists.txt), else from the build tree
// the executable sits in (its CMakeCache.txt names the source tree), so that a new clone path does
// not change a compiled file and running a test executable by hand still works.
//
//   PREDLAKE_SOURCE_DIR     the clone
//   PREDLAKE_REFERENCE_DIR  pdr-backend's lake fixtures; default <clone>/../shared/reference/
//                           pdr-backend-lake-fixtures
//   PREDLAKE_BINARY         the built CLI; default <build>/predlake
//   PREDLAKE_TEST_HOLDER    the lake holder (tests/support/holder_main.cpp); default
//                           <build>/tests/predlake_test_holder
//
// When a path cannot be found (or does not exist), the functions print one line naming the variable
// to stderr, fail the running test (if any) and return "": a test that needs it fails loudly.
#pragma once

#include <string>
#include <string_view>

namespace predlake::test_support {

std::string SourceDir();
std::string ReferenceDir();
// <ReferenceDir()>/<table>.csv
std::string ReferenceFile(std::string_view table);
std::string PredlakeBinary();
std::string HolderBinary();

// The build tree this executable belongs to (the nearest parent holding CMakeCache.txt), or "".
std::string BuildDir();

}  // namespace predlake::test_support
