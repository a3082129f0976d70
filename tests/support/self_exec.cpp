#include "self_exec.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

namespace predlake::test_support {

namespace {

bool Dropped(const std::string& entry, const ChildSpec& spec) {
  for (const std::string& prefix : spec.drop_env) {
    if (entry.rfind(prefix, 0) == 0) return true;
  }
  for (const std::string& added : spec.env) {
    std::string name = added.substr(0, added.find('=') + 1);
    if (entry.rfind(name, 0) == 0) return true;
  }
  return false;
}

}  // namespace

pid_t StartChild(const ChildSpec& spec) {
  std::vector<std::string> args = {spec.program.empty() ? "/proc/self/exe" : spec.program};
  args.insert(args.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    if (!Dropped(entry, spec)) env.push_back(std::move(entry));
  }
  env.insert(env.end(), spec.env.begin(), spec.env.end());
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  // The child's own output would only clutter the parent's.
  int devnull = !spec.quiet || std::getenv("PREDLAKE_TEST_VERBOSE")
                    ? -1
                    : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  pid_t pid = ::fork();
  if (pid < 0) {
    if (devnull >= 0) ::close(devnull);
    return -1;
  }
  if (pid == 0) {
    if (devnull >= 0) {
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  if (devnull >= 0) ::close(devnull);
  return pid;
}

ChildStatus WaitChild(pid_t pid) {
  ChildStatus status;
  if (pid <= 0) return status;
  int raw = 0;
  if (::waitpid(pid, &raw, 0) != pid) return status;
  status.started = true;
  if (WIFSIGNALED(raw)) status.signal = WTERMSIG(raw);
  if (WIFEXITED(raw)) status.exit_code = WEXITSTATUS(raw);
  return status;
}

ChildStatus RunChild(const ChildSpec& spec) { return WaitChild(StartChild(spec)); }

}  // namespace predlake::test_support
