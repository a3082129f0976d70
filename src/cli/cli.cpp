#include "cli/cli.hpp"

#include <cstdio>

namespace predlake::cli {

int Main(int, char**) {
  std::fputs("predlake: not built yet\n", stderr);
  return 2;
}

}  // namespace predlake::cli
