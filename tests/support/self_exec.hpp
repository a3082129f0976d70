// Child processes for tests: this test executable re-executed with a gtest filter (so that a test
// can SIGKILL a job mid-run without fork-related hazards in the parent), or a helper program such
// as the lake holder. Everything is prepared before fork(): the child only redirects and execs.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace predlake::test_support {

struct ChildSpec {
  std::string program;                // "" runs this executable (/proc/self/exe)
  std::vector<std::string> args;      // after argv[0]
  std::vector<std::string> env;       // NAME=VALUE added to (or replacing) the parent's
  std::vector<std::string> drop_env;  // prefixes of parent variables not passed on
  bool quiet = true;                  // stdout and stderr to /dev/null (unless
                                      // PREDLAKE_TEST_VERBOSE is set)
};

struct ChildStatus {
  bool started = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool Succeeded() const { return started && signal == 0 && exit_code == 0; }
};

// Starts the child; returns its pid, or -1 when it could not be started.
pid_t StartChild(const ChildSpec& spec);
// Waits for a child started by StartChild.
ChildStatus WaitChild(pid_t pid);
// StartChild, then WaitChild.
ChildStatus RunChild(const ChildSpec& spec);

}  // namespace predlake::test_support
