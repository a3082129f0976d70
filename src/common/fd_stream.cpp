#include "common/fd_stream.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace predlake {

FdStreambuf::FdStreambuf(int fd, size_t buffer_size) : fd_(fd), buffer_(buffer_size) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

FdStreambuf::~FdStreambuf() { FlushBuffer(); }

bool FdStreambuf::WriteAll(const char* data, size_t size) {
  if (error_ != 0) return false;
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    if (n == 0) {
      error_ = EIO;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool FdStreambuf::FlushBuffer() {
  const size_t pending = static_cast<size_t>(pptr() - pbase());
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  if (pending == 0) return error_ == 0;
  return WriteAll(buffer_.data(), pending);
}

FdStreambuf::int_type FdStreambuf::overflow(int_type ch) {
  if (!FlushBuffer()) return traits_type::eof();
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  *pptr() = traits_type::to_char_type(ch);
  pbump(1);
  return ch;
}

int FdStreambuf::sync() { return FlushBuffer() ? 0 : -1; }

std::streamsize FdStreambuf::xsputn(const char* s, std::streamsize n) {
  if (error_ != 0) return 0;
  const std::streamsize room = epptr() - pptr();
  if (n <= room) {
    std::memcpy(pptr(), s, static_cast<size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  // Larger than what is left: write the buffer, then the data itself when it is large.
  if (!FlushBuffer()) return 0;
  if (static_cast<size_t>(n) >= buffer_.size()) {
    return WriteAll(s, static_cast<size_t>(n)) ? n : 0;
  }
  std::memcpy(pptr(), s, static_cast<size_t>(n));
  pbump(static_cast<int>(n));
  return n;
}

FdOstream::FdOstream(int fd, bool unit_buffered)
    : std::ostream(nullptr), buf_(fd, unit_buffered ? 4096 : 64 * 1024) {
  rdbuf(&buf_);
  if (unit_buffered) setf(std::ios::unitbuf);
}

int FdOstream::Finish() {
  flush();
  return buf_.error();
}

}  // namespace predlake
