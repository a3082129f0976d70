// A bound on the work done at once: at most `slots` holders, the others waiting in arrival order.
// The servers' connection threads (connection_threads.hpp) bound the connections; a Gate bounds the
// heavy requests among them (`serve`'s pages), so that a crowd computes a few pages at a time, each
// at full speed, instead of every page at once at a crowd's pace.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace predlake::http {

class Gate {
 public:
  // At least one slot (0 reads as 1).
  explicit Gate(size_t slots);
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  // Held while alive; releasing it admits the longest waiting Enter.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    Slot& operator=(Slot&&) = delete;
    ~Slot();

   private:
    friend class Gate;
    explicit Slot(Gate* gate) : gate_(gate) {}
    Gate* gate_;
  };

  // Waits until fewer than `slots` Slots are held and every earlier Enter has entered (first
  // come, first served), then holds a slot. Thread-safe; the Gate must outlive its Slots.
  [[nodiscard]] Slot Enter();

  size_t slots() const { return slots_; }
  size_t holding() const;  // Slots held now
  size_t waiting() const;  // Enter calls waiting now
  // Blocks until `waiting()` is at least `n` (for tests: an event, not a sleep).
  void AwaitWaiting(size_t n) const;

 private:
  void Leave();

  const size_t slots_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  size_t holding_ = 0;
  uint64_t next_ticket_ = 0;  // the ticket of the next Enter
  uint64_t admitted_ = 0;     // tickets below this have entered
};

}  // namespace predlake::http
