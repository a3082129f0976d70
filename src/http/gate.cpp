#include "http/gate.hpp"

#include <algorithm>

namespace predlake::http {

Gate::Gate(size_t slots) : slots_(std::max<size_t>(1, slots)) {}

Gate::Slot::~Slot() {
  if (gate_ != nullptr) gate_->Leave();
}

Gate::Slot Gate::Enter() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = next_ticket_++;
  cv_.notify_all();  // AwaitWaiting
  // Tickets enter in order: the next one in line enters once a slot is free.
  cv_.wait(lock, [&] { return ticket == admitted_ && holding_ < slots_; });
  ++admitted_;
  ++holding_;
  cv_.notify_all();  // the next ticket may enter too, when slots are free
  return Slot(this);
}

void Gate::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  --holding_;
  cv_.notify_all();
}

size_t Gate::holding() const {
  std::lock_guard<std::mutex> lock(mu_);
  return holding_;
}

size_t Gate::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(next_ticket_ - admitted_);
}

void Gate::AwaitWaiting(size_t n) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return next_ticket_ - admitted_ >= n; });
}

}  // namespace predlake::http
