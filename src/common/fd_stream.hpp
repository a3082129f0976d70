// An output stream on a file descriptor (stdout, stderr) that remembers why a write failed, so that
// a command whose output was lost (a full disk, /dev/full, a closed pipe) ends with a failure
// instead of a success (docs/operations.md, "Failed output").
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace predlake {

// A buffered streambuf writing to `fd` with write(2), retrying short writes and EINTR. After the
// first failed write it keeps the errno, drops everything later and reports failure to the stream
// (which sets badbit). Not thread-safe; the fd is not owned and is never closed.
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd, size_t buffer_size = 64 * 1024);
  ~FdStreambuf() override;
  FdStreambuf(const FdStreambuf&) = delete;
  FdStreambuf& operator=(const FdStreambuf&) = delete;

  // The errno of the first failed write, 0 while every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  bool FlushBuffer();
  bool WriteAll(const char* data, size_t size);

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

// An ostream over its own FdStreambuf. `unit_buffered` flushes after every output operation (for
// stderr, so that log lines appear as they are written).
class FdOstream : public std::ostream {
 public:
  FdOstream(int fd, bool unit_buffered);
  // Flushes and returns the errno of the first failed write (0: everything was written).
  int Finish();

 private:
  FdStreambuf buf_;
};

}  // namespace predlake
