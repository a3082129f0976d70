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

thread_local bool t_refusing = false;

class ConnectionThreads final : public httplib::TaskQueue {
 public:
  ConnectionThreads(size_t max_threads, size_t max_waiting)
      : max_threads_(max_threads), max_waiting_(max_waiting) {}
  ~ConnectionThreads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (shutting_down_) return;
    if (running_ < max_threads_) {
      Spawn(std::move(fn));
    } else if (waiting_.size() < max_waiting_) {
      waiting_.push_back(std::move(fn));
    } else {
      // Answered at once (a 503) by one thread, so that a crowd costs a queue of sockets, never
      // a thread each; the kernel's accept backlog and the process's file limit bound the rest.
      refused_.push_back(std::move(fn));
      if (!refuser_running_) SpawnRefuser();
    }
  }

  void shutdown() override {
    std::unique_lock<std::mutex> lock(mu_);
    shutting_down_ = true;
    waiting_.clear();
    refused_.clear();
    done_cv_.wait(lock, [this] { return running_ == 0 && !refuser_running_; });
    for (std::thread& t : finished_) t.join();
    finished_.clear();
  }

 private:
  // Called with mu_ held, by the thread that is about to return: hands it over to be joined by a
  // later Spawn or shutdown.
  void Retire() {
    for (auto it = threads_.begin(); it != threads_.end(); ++it) {
      if (it->get_id() == std::this_thread::get_id()) {
        finished_.push_back(std::move(*it));
        threads_.erase(it);
        break;
      }
    }
    done_cv_.notify_all();
  }

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
          Retire();
          return;
        }
        std::function<void()> next = std::move(waiting_.front());
        waiting_.pop_front();
        lock.unlock();
        next();
      }
    });
  }

  // Called with mu_ held.
  void SpawnRefuser() {
    refuser_running_ = true;
    for (std::thread& t : finished_) t.join();
    finished_.clear();
    threads_.emplace_back([this] {
      t_refusing = true;
      while (true) {
        std::unique_lock<std::mutex> lock(mu_);
        if (refused_.empty() || shutting_down_) {
          refuser_running_ = false;
          Retire();
          return;
        }
        std::function<void()> next = std::move(refused_.front());
        refused_.pop_front();
        lock.unlock();
        next();
      }
    });
  }

  const size_t max_threads_;
  const size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  size_t running_ = 0;
  bool refuser_running_ = false;
  bool shutting_down_ = false;
  std::deque<std::function<void()>> waiting_;
  std::deque<std::function<void()>> refused_;
  std::list<std::thread> threads_;
  std::vector<std::thread> finished_;
};

}  // namespace

httplib::TaskQueue* NewConnectionThreads(size_t max_threads, size_t max_waiting) {
  return new ConnectionThreads(max_threads, max_waiting);
}

bool Refusing() { return t_refusing; }

}  // namespace predlake::http
