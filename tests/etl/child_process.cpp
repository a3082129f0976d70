#include "child_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "etl/etl.hpp"
#include "etl_test_util.hpp"
#include "lake/lake.hpp"

extern char** environ;

namespace predlake::etl::testing {

ChildOutcome RunChild(const ChildJob& job) {
  // Everything is prepared before fork(): the child only calls execve.
  std::string exe = "/proc/self/exe";
  std::vector<std::string> args = {exe, "--gtest_filter=EtlChildProcess.Run"};
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    if (entry.rfind("PREDLAKE_KILL_AT=", 0) == 0 || entry.rfind("PREDLAKE_FAIL_AT=", 0) == 0 ||
        entry.rfind("PREDLAKE_ETL_CHILD", 0) == 0 || entry.rfind("GTEST_", 0) == 0) {
      continue;
    }
    env.push_back(entry);
  }
  env.push_back("PREDLAKE_ETL_CHILD_DIR=" + job.lake_dir);
  env.push_back("PREDLAKE_ETL_CHILD_JOB=" + job.job);
  env.push_back("PREDLAKE_ETL_CHILD_ARG=" + std::to_string(job.arg_ms));
  env.push_back("PREDLAKE_ETL_CHILD_ST=" + std::to_string(job.st_ms));
  if (!job.kill_at.empty()) env.push_back("PREDLAKE_KILL_AT=" + job.kill_at);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  // The child's own gtest output would only clutter the parent's.
  int devnull =
      std::getenv("PREDLAKE_ETL_VERBOSE") ? -1 : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  pid_t pid = ::fork();
  if (pid < 0) {
    if (devnull >= 0) ::close(devnull);
    return ChildOutcome::kOther;
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
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return ChildOutcome::kOther;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) return ChildOutcome::kKilled;
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status) == 0 ? ChildOutcome::kSucceeded : ChildOutcome::kFailed;
  }
  return ChildOutcome::kOther;
}

namespace {

// The child side: does nothing in a normal test run.
TEST(EtlChildProcess, Run) {
  const char* dir = std::getenv("PREDLAKE_ETL_CHILD_DIR");
  if (!dir) GTEST_SKIP() << "only runs as the child of a kill test";
  std::string job = std::getenv("PREDLAKE_ETL_CHILD_JOB");
  int64_t arg = std::atoll(std::getenv("PREDLAKE_ETL_CHILD_ARG"));
  int64_t st = std::atoll(std::getenv("PREDLAKE_ETL_CHILD_ST"));
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = "test child";
  open.threads = 2;
  auto lake = lake::Lake::Open(dir, open);
  ASSERT_TRUE(lake.ok()) << lake.status().message();
  UpdateOptions options;
  options.faults = FaultInjection::FromEnv();
  options.st_ms = st;
  if (arg != 0) options.to_ms = arg;
  Result<RunReport> report = Status::Internal("unknown child job " + job);
  if (job == "update") report = Update(**lake, options);
  if (job == "rebuild") report = Rebuild(**lake, options);
  if (job == "drop") report = Drop(**lake, arg, options);
  if (job == "raw_drop") report = RawDrop(**lake, arg, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
}

}  // namespace
}  // namespace predlake::etl::testing
