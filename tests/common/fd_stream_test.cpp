#include "common/fd_stream.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace predlake {
namespace {

TEST(FdStreamTest, WritesEverythingToAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    FdOstream out(fds[1], /*unit_buffered=*/false);
    out << "a" << std::string(100, 'b') << '\n';
    EXPECT_EQ(out.Finish(), 0);
  }
  ::close(fds[1]);
  char buf[256];
  ssize_t n = ::read(fds[0], buf, sizeof(buf));
  ::close(fds[0]);
  EXPECT_EQ(n, 102);
}

TEST(FdStreamTest, AFullDeviceIsAFailureThatStays) {
  int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  FdOstream out(fd, /*unit_buffered=*/false);
  out << std::string(200'000, 'x');  // more than the buffer: written at once
  EXPECT_FALSE(out.good());
  out << "more";
  EXPECT_EQ(out.Finish(), ENOSPC);
  ::close(fd);
}

TEST(FdStreamTest, AClosedPipeIsEpipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  // SIGPIPE would end the test process: ignore it here, as a parent may.
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  FdOstream out(fds[1], /*unit_buffered=*/true);
  out << "line\n";
  EXPECT_EQ(out.Finish(), EPIPE);
  ::sigaction(SIGPIPE, &old, nullptr);
  ::close(fds[1]);
}

}  // namespace
}  // namespace predlake
