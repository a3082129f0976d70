// The built `predlake` binary, run as a child process: exit statuses and what lands on stdout /
// stderr.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.hpp"

extern char** environ;

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Outcome {
  int rc = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class BinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("predlake_binary_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the binary in dir_ with stdout and stderr redirected to files (never a terminal).
  Outcome Exec(const std::vector<std::string>& args) {
    std::vector<std::string> argv_s = {predlake::test_support::PredlakeBinary()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out_path = (dir_ / "stdout").string();
    const std::string err_path = (dir_ / "stderr").string();

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir_.c_str());
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    Outcome o;
    int spawn_rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawn_rc != 0) {
      ADD_FAILURE() << "cannot run " << argv_s[0];
      return o;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    o.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = Slurp(out_path);
    o.err = Slurp(err_path);
    return o;
  }

  static bool OneLine(const std::string& s) {
    return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1;
  }

  std::filesystem::path dir_;
};

TEST_F(BinaryTest, HelpListsCommands) {
  Outcome o = Exec({"--help"});
  EXPECT_EQ(o.rc, 0);
  EXPECT_EQ(o.err, "");
  EXPECT_THAT(o.out, HasSubstr("config show"));
  EXPECT_THAT(o.out, HasSubstr("version"));
  EXPECT_THAT(o.out, HasSubstr("-c, --config FILE"));
}

TEST_F(BinaryTest, Version) {
  Outcome o = Exec({"version"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, StartsWith("predlake 0."));
  EXPECT_THAT(o.out, HasSubstr("\nDuckDB v1.5.6"));
  EXPECT_EQ(Exec({"-c", "missing.yaml", "version"}).rc, 0);
}

TEST_F(BinaryTest, UsageErrorsAreOneLineExit2) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"frobnicate"},
                                             {"config", "show", "--bogus"},
                                             {"--bogus", "version"},
                                             {"-c", "missing.yaml", "config", "show"},
                                             {"-n", "polygon", "config", "show"},
                                             {"config", "show", "missing.yaml", "sim"},
                                             {"config"},
                                             {}}) {
    Outcome o = Exec(args);
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(o.rc, 2) << joined;
    EXPECT_EQ(o.out, "") << joined;
    EXPECT_TRUE(OneLine(o.err)) << joined << ": " << o.err;
    EXPECT_THAT(o.err, StartsWith("predlake: ")) << joined;
  }
}

TEST_F(BinaryTest, MissingExplicitConfig) {
  Outcome o = Exec({"-c", "missing.yaml", "config", "show"});
  EXPECT_EQ(o.err, "predlake: cannot read config missing.yaml: No such file or directory\n");
}

TEST_F(BinaryTest, PositionalFormAndConfigShowOrigins) {
  std::ofstream(dir_ / "my.yaml") << "lake_ss:\n  lake_dir: mine\n";
  Outcome o = Exec({"config", "show", "my.yaml", "sapphire-mainnet", "--format", "csv"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_THAT(o.out, StartsWith("key,value,origin\nconfig,my.yaml,flag\n"));
  EXPECT_THAT(o.out, HasSubstr("\nnetwork,sapphire-mainnet,flag\n"));
  EXPECT_THAT(o.out, HasSubstr("\nnow,"));
  EXPECT_THAT(o.out, HasSubstr(",wall clock\n"));
  EXPECT_THAT(o.out, HasSubstr("\nlake_ss.lake_dir,mine,my.yaml:2\n"));
}

TEST_F(BinaryTest, RepoConfigWorks) {
  Outcome o =
      Exec({"-q", "-c", predlake::test_support::SourceDir() + "/ppss.yaml", "config", "show"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_THAT(o.out, HasSubstr("7 days ago"));
}

}  // namespace
