// Threads for cpp-httplib servers (`sim serve`, `serve`): one thread per connection, up to a bound,
// instead of httplib's fixed pool, which N idle keep-alive connections hold while every other
// client waits behind them; a bounded number of connections waiting for a thread; and past that
// bound, one more thread that answers each further connection at once with a refusal.
#pragma once

#include <cstddef>

namespace httplib {
class TaskQueue;
}

namespace predlake::http {

// A new task queue for httplib::Server::new_task_queue (the server owns and deletes it). Each
// connection gets a thread of its own while fewer than `max_threads` run; past the bound, up to
// `max_waiting` connections wait for a thread to come free (a connection lets go of its thread
// when the server closes it, e.g. after its keep-alive timeout), in arrival order. A connection
// that finds `max_waiting` waiting already is served by the one refusing thread instead, on which
// Refusing() is true: the server answers it 503 at once (http::Server does). So a server holds at
// most max_threads + 1 threads of connections, however many clients come. shutdown() drops the
// waiting connections and joins every thread. Thread-safe.
httplib::TaskQueue* NewConnectionThreads(size_t max_threads, size_t max_waiting);

// True on the refusing thread of NewConnectionThreads, while it serves a connection that found the
// waiting connections at their bound.
bool Refusing();

}  // namespace predlake::http
