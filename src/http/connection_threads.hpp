// Threads for cpp-httplib servers (`sim serve`, `serve`): one thread per connection, up to a bound,
// instead of httplib's fixed pool, which N idle keep-alive connections hold while every other
// client waits behind them.
#pragma once

#include <cstddef>

namespace httplib {
class TaskQueue;
}

namespace predlake::http {

// A new task queue for httplib::Server::new_task_queue (the server owns and deletes it). Each
// connection gets a thread of its own while fewer than `max_threads` run; past the bound,
// connections wait for a thread to come free (a connection lets go of its thread when the server
// closes it, e.g. after its keep-alive timeout). shutdown() drops the waiting connections and
// joins every thread. Thread-safe.
httplib::TaskQueue* NewConnectionThreads(size_t max_threads);

}  // namespace predlake::http
