// The block map: which basic blocks of our modules a test ran, for scripts/sanitize_selection.sh.
//
// A tree configured with -DPREDLAKE_BLOCK_MAP=ON compiles every module under src/ with GCC's
// -fsanitize-coverage=trace-pc, which calls __sanitizer_cov_trace_pc() at the start of each basic
// block; block_map.cpp defines it and records the calling address once. Nothing else in the
// product or the tests changes. In any other tree this library is not built.
#pragma once

#include <cstdint>
#include <vector>

namespace predlake::test_support {

// The blocks recorded since the last call, as offsets from the executable's load address (the
// addresses `nm` prints for it), in no particular order, and forgets them. Thread-safe: blocks
// recorded by other threads during the call land in this call's result or the next one's.
std::vector<uintptr_t> TakeBlocks();

}  // namespace predlake::test_support
