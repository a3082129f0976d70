#include "support/block_map.hpp"

#include <link.h>

#include <atomic>
#include <cstddef>

namespace predlake::test_support {

namespace {

// An open-addressed set of block addresses, zero for an empty slot. The modules have about 10^5
// blocks; a table of 2^21 stays sparse enough that a probe ends within a few slots.
constexpr size_t kBlockSlotBits = 21;
constexpr size_t kBlockSlots = size_t{1} << kBlockSlotBits;
std::atomic<uintptr_t> block_slots[kBlockSlots];

void RecordBlock(uintptr_t pc) {
  size_t i = static_cast<size_t>((pc * 0x9E3779B97F4A7C15ull) >> (64 - kBlockSlotBits));
  for (size_t probes = 0; probes < kBlockSlots; ++probes, i = (i + 1) & (kBlockSlots - 1)) {
    uintptr_t seen = block_slots[i].load(std::memory_order_relaxed);
    if (seen == pc) return;
    if (seen == 0) {
      if (block_slots[i].compare_exchange_strong(seen, pc, std::memory_order_relaxed)) return;
      if (seen == pc) return;
    }
  }
}

int FirstObject(dl_phdr_info* info, size_t, void* out) {
  *static_cast<uintptr_t*>(out) = info->dlpi_addr;
  return 1;  // the first object is the executable
}

uintptr_t LoadAddress() {
  static const uintptr_t address = [] {
    uintptr_t base = 0;
    dl_iterate_phdr(FirstObject, &base);
    return base;
  }();
  return address;
}

}  // namespace

std::vector<uintptr_t> TakeBlocks() {
  const uintptr_t base = LoadAddress();
  std::vector<uintptr_t> blocks;
  for (auto& slot : block_slots) {
    const uintptr_t pc = slot.exchange(0, std::memory_order_relaxed);
    if (pc != 0) blocks.push_back(pc - base);
  }
  return blocks;
}

}  // namespace predlake::test_support

extern "C" void __sanitizer_cov_trace_pc() {
  predlake::test_support::RecordBlock(reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}
