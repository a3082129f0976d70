#include "http/connection_threads.hpp"

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace predlake::http {

namespace {

class ConnectionThreads final : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(size_t max_threads) : max_threads_(max_threads) {}
  ~ConnectionThreads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (shutting_down_) return;
    if (running_ < max_threads_) {
      Spawn(std::move(fn));
    } else {
      waiting_.push_back(std::move(fn));
    }
  }

  void shutdown() override {
    std::unique_lock<std::mutex> lock(mu_);
    shutting_down_ = true;
    waiting_.clear();
    done_cv_.wait(lock, [this] { return running_ == 0; });
    for (std::thread& t : finished_) t.join();
    finished_.clear();
  }

 private:
  // Called with mu_ held.
  void Spawn(std::function<void()> fn) {
    ++running_;
    for (std::thread& t : finished_) t.join();  // threads that have returned: reap them
    finished_.clear();
    threads_.emplace_back([this, fn = std::move(fn)]() mutable {
      fn();
      while (true) {
        std::unique_lock<std::mutex> lock(mu_);
        if (waiting_.empty() || shutting_down_) {
          --running_;
          // Hand this thread over to be joined by a later Spawn or shutdown.
          for (auto it = threads_.begin(); it != threads_.end(); ++it) {
            if (it->get_id() == std::this_thread::get_id()) {
              finished_.push_back(std::move(*it));
              threads_.erase(it);
              break;
            }
          }
          done_cv_.notify_all();
          return;
        }
        std::function<void()> next = std::move(waiting_.front());
        waiting_.pop_front();
        lock.unlock();
        next();
      }
    });
  }

  const size_t max_threads_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  size_t running_ = 0;
  bool shutting_down_ = false;
  std::deque<std::function<void()>> waiting_;
  std::list<std::thread> threads_;
  std::vector<std::thread> finished_;
};

}  // namespace

httplib::TaskQueue* NewConnectionThreads(size_t max_threads) {
  return new ConnectionThreads(max_threads);
}

}  // namespace predlake::http
