// The command-line framework, in-process (cli::Run with injected commands, streams and clock).
#include "cli/cli.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

namespace predlake::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr int64_t kWallMs = 1'800'000'000'000;    // 2027-01-15T08:00:00Z
constexpr int64_t kPinnedMs = 1'721'959'200'000;  // 2024-07-26T02:00:00Z

// What the probe command saw.
struct Seen {
  bool ran = false;
  std::string network;
  config::Origin network_origin;
  std::string config_path;
  int64_t now_ms = 0;
  bool quiet = false;
  int64_t to_ms = -1;
  std::string lake_path;
  int64_t count = 0;
  bool loud = false;
  std::string format;
  std::vector<std::string> words;
};

struct Outcome {
  int rc = 0;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("predlake_cli_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);
  }
  void TearDown() override {
    std::filesystem::current_path(old_cwd_);
    std::filesystem::remove_all(dir_);
  }

  void WriteFile(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  std::vector<CommandSpec> TestSpecs() {
    std::vector<CommandSpec> specs;
    struct ProbeOpts {
      std::string to = "now";
      int64_t count = 3;
      bool loud = false;
      std::string format = "text";
      std::vector<std::string> words;
    };
    specs.push_back({"probe", "record what the command sees", [this](OptionSet& args) -> RunFn {
                       auto o = std::make_shared<ProbeOpts>();
                       args.Time("--to", &o->to, "end");
                       args.Integer("--count", &o->count, "how many").Range(1, 9);
                       args.Flag("--loud", &o->loud, "say more");
                       args.Format(&o->format, {"text", "json"});
                       args.Positionals("WORD", &o->words, "words to echo");
                       return [this, o](Context& ctx) -> Status {
                         seen_.ran = true;
                         seen_.network = ctx.network();
                         seen_.network_origin = ctx.network_origin();
                         seen_.config_path = ctx.config().path;
                         seen_.now_ms = ctx.now_ms();
                         seen_.quiet = ctx.quiet();
                         seen_.lake_path = ctx.LakePath();
                         seen_.count = o->count;
                         seen_.loud = o->loud;
                         seen_.format = o->format;
                         seen_.words = o->words;
                         ASSIGN_OR_RETURN(seen_.to_ms, ctx.ParseTimeArg(o->to, "--to"));
                         ctx.out() << "probe ok\n";
                         ctx.log().Info("informational");
                         return Status::Ok();
                       };
                     }});
    specs.push_back({"grp", "the test group", nullptr});
    specs.push_back({"grp leaf", "a nested command", [](OptionSet&) -> RunFn {
                       return [](Context& ctx) -> Status {
                         ctx.out() << "leaf ran\n";
                         return Status::Ok();
                       };
                     }});
    specs.push_back({"grp other", "another nested command",
                     [](OptionSet&) -> RunFn { return [](Context&) { return Status::Ok(); }; }});
    specs.push_back({"fail", "fails with a multi-line data error", [](OptionSet&) -> RunFn {
                       return [](Context&) {
                         return Status::Data("Binder Error: no such column\n\nLINE 1: x");
                       };
                     }});
    return specs;
  }

  Outcome Exec(std::vector<std::string> args, std::optional<std::vector<CommandSpec>> specs = {}) {
    std::ostringstream out, err;
    Io io;
    io.out = &out;
    io.err = &err;
    io.clock = &clock_;
    Outcome o;
    o.rc = specs ? cli::Run(args, io, *specs) : cli::Run(args, io);
    o.out = out.str();
    o.err = err.str();
    return o;
  }
  Outcome ExecTest(std::vector<std::string> args) { return Exec(std::move(args), TestSpecs()); }

  static bool OneLine(const std::string& s) {
    return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1;
  }

  std::filesystem::path dir_;
  std::filesystem::path old_cwd_;
  FixedClock clock_{kWallMs};
  Seen seen_;
};

TEST_F(CliTest, RootHelpListsEveryCommand) {
  Outcome o = ExecTest({"--help"});
  EXPECT_EQ(o.rc, 0);
  EXPECT_EQ(o.err, "");
  EXPECT_THAT(o.out, HasSubstr("Usage: predlake"));
  EXPECT_THAT(o.out, HasSubstr("probe"));
  EXPECT_THAT(o.out, HasSubstr("grp leaf"));
  EXPECT_THAT(o.out, HasSubstr("grp other"));
  EXPECT_THAT(o.out, HasSubstr("PPSS_FILE NETWORK"));
  EXPECT_THAT(o.out, Not(HasSubstr("the test group")));  // a group's row is not a command
  EXPECT_LT(o.out.find("  probe "), o.out.find("  grp leaf "));
  EXPECT_LT(o.out.find("  grp other "), o.out.find("  fail "));
}

// The real command table: help order, groups, unique paths.
TEST_F(CliTest, CommandTableIsWellFormed) {
  const std::vector<CommandSpec>& table = AllCommands();
  std::vector<std::string> commands;
  std::set<std::string> paths, groups;
  for (const CommandSpec& spec : table) {
    EXPECT_TRUE(paths.insert(spec.path).second) << "duplicate " << spec.path;
    EXPECT_FALSE(spec.help.empty()) << spec.path;
    EXPECT_EQ(spec.help.find('\n'), std::string::npos) << spec.path;
    if (!spec.handler) {
      groups.insert(spec.path);
      continue;
    }
    commands.push_back(spec.path);
    size_t space = spec.path.rfind(' ');
    if (space != std::string::npos) {
      // Each group's row comes before its commands.
      EXPECT_TRUE(groups.count(spec.path.substr(0, space))) << spec.path << " has no group row";
    }
  }
  for (const std::string& g : groups) {
    EXPECT_TRUE(std::any_of(commands.begin(), commands.end(),
                            [&](const std::string& c) { return c.rfind(g + " ", 0) == 0; }))
        << "group " << g << " has no command";
  }
  // docs/design.md's command list starts with it.
  EXPECT_EQ(commands.front(), "update");
  EXPECT_EQ(commands.back(), "version");
  // `predlake --help` lists exactly the commands, in the table's order.
  Outcome o = Exec({"--help"});
  size_t last = 0;
  for (const std::string& c : commands) {
    size_t at = o.out.find("\n  " + c + " ");
    ASSERT_NE(at, std::string::npos) << c;
    EXPECT_GT(at, last) << c;
    last = at;
  }
  o = Exec({"raw", "--help"});
  EXPECT_THAT(o.out, StartsWith("raw tables: fetch, drop, import\n"));
}

TEST_F(CliTest, DeclaredOptionKinds) {
  Outcome o = ExecTest({"probe", "--count", "7", "--loud", "--format", "json", "a", "b"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.count, 7);
  EXPECT_TRUE(seen_.loud);
  EXPECT_EQ(seen_.format, "json");
  EXPECT_EQ(seen_.words, (std::vector<std::string>{"a", "b"}));
  seen_ = {};
  o = ExecTest({"probe"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.count, 3);
  EXPECT_FALSE(seen_.loud);
  EXPECT_EQ(seen_.format, "text");

  seen_ = {};
  o = ExecTest({"probe", "--count", "10"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: --count: 10 is out of range [1, 9] (see 'predlake probe --help')\n");
  o = ExecTest({"probe", "--count", "x"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err,
            "predlake: --count: expected an integer, got 'x' (see 'predlake probe --help')\n");
  o = ExecTest({"probe", "--format", "csv"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: --format: csv not in {text,json} (see 'predlake probe --help')\n");
  EXPECT_FALSE(seen_.ran);

  o = ExecTest({"probe", "--help"});
  EXPECT_THAT(o.out, HasSubstr("--count INT:INT in [1 - 9]=3"));
  EXPECT_THAT(o.out, HasSubstr("--format FORMAT:{text,json}=text"));
  EXPECT_THAT(o.out, HasSubstr("--to TIME"));
  EXPECT_THAT(o.out, HasSubstr("--loud"));
  EXPECT_THAT(o.out, HasSubstr("WORD TEXT ..."));
}

TEST_F(CliTest, RealRegistryHasFrameworkCommandsInOrder) {
  Outcome o = Exec({"-h"});
  EXPECT_EQ(o.rc, 0);
  size_t show = o.out.find("\n  config show ");
  size_t version = o.out.find("\n  version ");
  ASSERT_NE(show, std::string::npos);
  ASSERT_NE(version, std::string::npos);
  EXPECT_LT(show, version);
}

// `predlake help [COMMAND]` prints what `predlake [COMMAND] --help` does, for every path of the
// command table, commands and groups alike.
TEST_F(CliTest, HelpCommandPrintsEachPathsHelp) {
  Outcome root = Exec({"--help"});
  ASSERT_EQ(root.rc, 0);
  Outcome o = Exec({"help"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, root.out);
  for (const CommandSpec& spec : AllCommands()) {
    std::vector<std::string> words;
    std::istringstream in(spec.path);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<std::string> with_flag = words;
    with_flag.push_back("--help");
    Outcome expected = Exec(with_flag);
    ASSERT_EQ(expected.rc, 0) << spec.path;
    ASSERT_THAT(expected.out, HasSubstr(spec.help)) << spec.path;
    words.insert(words.begin(), "help");
    o = Exec(words);
    EXPECT_EQ(o.rc, 0) << spec.path << ": " << o.err;
    EXPECT_EQ(o.out, expected.out) << spec.path;
    EXPECT_EQ(o.err, "") << spec.path;
  }
  // Global options go before it, as before any command; its own help is there too.
  o = Exec({"-q", "help", "raw", "update"});
  EXPECT_EQ(o.out, Exec({"raw", "update", "--help"}).out);
  o = Exec({"help", "--help"});
  EXPECT_EQ(o.rc, 0);
  EXPECT_THAT(o.out, HasSubstr("COMMAND"));
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"help", "frobnicate"}, {"help", "raw", "frobnicate"}, {"help", "raw", "update", "x"}}) {
    o = Exec(bad);
    EXPECT_EQ(o.rc, 2) << bad.back();
    EXPECT_EQ(o.out, "") << bad.back();
    EXPECT_TRUE(OneLine(o.err)) << o.err;
    EXPECT_THAT(o.err, HasSubstr("unknown command")) << bad.back();
  }
}

// `predlake --version` is `predlake version`, wherever the global options put it.
TEST_F(CliTest, VersionFlagIsTheVersionCommand) {
  Outcome version = Exec({"version"});
  ASSERT_EQ(version.rc, 0) << version.err;
  EXPECT_THAT(version.out, StartsWith("predlake "));
  EXPECT_THAT(version.out, HasSubstr("\nDuckDB "));
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--version"}, {"-q", "--version"}, {"-c", "missing.yaml", "--version"}}) {
    Outcome o = Exec(args);
    EXPECT_EQ(o.rc, 0) << args.back() << ": " << o.err;
    EXPECT_EQ(o.out, version.out);
  }
  Outcome o = Exec({"--version", "describe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
  EXPECT_THAT(Exec({"--help"}).out, HasSubstr("--version"));
}

TEST_F(CliTest, NoCommandIsUsageError) {
  Outcome o = ExecTest({});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
  EXPECT_THAT(o.err, HasSubstr("no command"));
  EXPECT_THAT(o.err, HasSubstr("--help"));
}

TEST_F(CliTest, GlobalOptionWithoutValue) {
  Outcome o = ExecTest({"-c"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: -c needs a value (see 'predlake --help')\n");
  o = ExecTest({"probe", "-n"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
}

TEST_F(CliTest, UnknownCommandIsOneLineWithHint) {
  Outcome o = ExecTest({"frobnicate", "--to", "now"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "predlake: unknown command 'frobnicate' (see 'predlake --help')\n");
  o = ExecTest({"grp", "nope"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: unknown command 'grp nope' (see 'predlake grp --help')\n");
}

// pdr-backend's `dashboard` and near misses of a command get a hint, on the same one line.
TEST_F(CliTest, UnknownCommandSuggestsTheNearestOne) {
  Outcome o = Exec({"dashboard"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(
      o.err,
      "predlake: unknown command 'dashboard' (did you mean 'serve'? see 'predlake --help')\n");
  o = Exec({"-q", "dashboard", "ppss.yaml", "sim"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_THAT(o.err, HasSubstr("did you mean 'serve'?"));
  o = Exec({"updte"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err,
            "predlake: unknown command 'updte' (did you mean 'update'? see 'predlake --help')\n");
}

TEST_F(CliTest, GroupWithoutCommand) {
  Outcome o = ExecTest({"grp"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: 'grp' needs a command: leaf, other (see 'predlake grp --help')\n");
  o = ExecTest({"grp", "--help"});
  EXPECT_EQ(o.rc, 0);
  EXPECT_THAT(o.out, HasSubstr("leaf"));
  EXPECT_THAT(o.out, HasSubstr("other"));
}

TEST_F(CliTest, NestedCommandRuns) {
  Outcome o = ExecTest({"grp", "leaf"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "leaf ran\n");
}

TEST_F(CliTest, UnknownFlagIsOneLine) {
  Outcome o = ExecTest({"probe", "--bogus"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
  EXPECT_THAT(o.err, StartsWith("predlake: "));
  EXPECT_THAT(o.err, HasSubstr("--bogus"));
  EXPECT_THAT(o.err, HasSubstr("predlake probe --help"));
  EXPECT_FALSE(seen_.ran);
  o = ExecTest({"--bogus", "probe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
}

TEST_F(CliTest, CommandHelp) {
  Outcome o = ExecTest({"probe", "--help"});
  EXPECT_EQ(o.rc, 0);
  EXPECT_THAT(o.out, HasSubstr("record what the command sees"));
  EXPECT_THAT(o.out, HasSubstr("--to"));
  EXPECT_THAT(o.out, HasSubstr("YYYY-MM-DD"));
  EXPECT_FALSE(seen_.ran);
}

TEST_F(CliTest, DefaultsWhenDefaultConfigIsMissing) {
  Outcome o = ExecTest({"probe"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "probe ok\n");
  EXPECT_EQ(o.err, "predlake: informational\n");
  EXPECT_EQ(seen_.config_path, "");
  EXPECT_EQ(seen_.network, "sim");
  EXPECT_EQ(seen_.network_origin.kind, config::Origin::Kind::kDefault);
  EXPECT_EQ(seen_.now_ms, kPinnedMs);  // sim's built-in pinned now
  EXPECT_EQ(seen_.to_ms, kPinnedMs);
  EXPECT_EQ(seen_.lake_path, "lake_data/lake.duckdb");
}

TEST_F(CliTest, DefaultConfigFileIsRead) {
  WriteFile("ppss.yaml", "lake_ss:\n  lake_dir: here\n  network: sapphire-testnet\n");
  Outcome o = ExecTest({"probe"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.config_path, "ppss.yaml");
  EXPECT_EQ(seen_.network, "sapphire-testnet");
  EXPECT_EQ(seen_.network_origin.Describe(), "ppss.yaml:3");
  EXPECT_EQ(seen_.now_ms, kWallMs);  // real networks use the wall clock
  EXPECT_EQ(seen_.lake_path, "here/lake.duckdb");
}

TEST_F(CliTest, BrokenDefaultConfigIsAnError) {
  WriteFile("ppss.yaml", "lake_ss:\n  nope: 1\n");
  Outcome o = ExecTest({"probe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(
      o.err,
      "predlake: ppss.yaml:2: unknown key 'nope' in lake_ss (known: lake_dir, "
      "st_timestr, fin_timestr, network, export_after_publish, export_db_data_to_parquet_files, "
      "export_grace, retry_budget, "
      "feed_source, ohlcv, ohlcv_exchange, ohlcv_base_url, ohlcv_gap_after, "
      "checkpoint_period, memory_limit)\n");
  EXPECT_FALSE(seen_.ran);
}

TEST_F(CliTest, ExplicitMissingConfigIsOneLine) {
  Outcome o = ExecTest({"-c", "missing.yaml", "probe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "predlake: cannot read config missing.yaml: No such file or directory\n");
  o = Exec({"-c", "missing.yaml", "config", "show"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: cannot read config missing.yaml: No such file or directory\n");
}

TEST_F(CliTest, VersionNeedsNoConfig) {
  Outcome o = Exec({"-c", "missing.yaml", "version"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, StartsWith("predlake "));
  EXPECT_THAT(o.out, HasSubstr("DuckDB v"));
}

TEST_F(CliTest, NetworkFlag) {
  Outcome o = ExecTest({"-n", "sapphire-mainnet", "probe"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.network, "sapphire-mainnet");
  EXPECT_EQ(seen_.network_origin.kind, config::Origin::Kind::kFlag);
  EXPECT_EQ(seen_.now_ms, kWallMs);
}

TEST_F(CliTest, UnknownNetwork) {
  Outcome o = ExecTest({"-n", "polygon", "probe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err,
            "predlake: unknown network 'polygon' (known: sim, sapphire-mainnet, sapphire-testnet; "
            "another network needs web3_pp.polygon.subgraph_url)\n");
  EXPECT_FALSE(seen_.ran);
}

TEST_F(CliTest, PositionalPpssFileAndNetwork) {
  WriteFile("my.yaml", "lake_ss:\n  lake_dir: mine\n");
  Outcome o = ExecTest({"probe", "my.yaml", "sapphire-testnet", "--to", "1 hour ago"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.config_path, "my.yaml");
  EXPECT_EQ(seen_.network, "sapphire-testnet");
  EXPECT_EQ(seen_.lake_path, "mine/lake.duckdb");
  EXPECT_EQ(seen_.to_ms, kWallMs - 3'600'000);

  o = ExecTest({"grp", "leaf", "my.yaml", "sim"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "leaf ran\n");
}

// pdr-backend's `pdr lake COMMAND ...`: a leading `lake` means the same, in either order of the
// rest, after the global options too.
TEST_F(CliTest, LeadingLakeIsPdrBackendsGroup) {
  WriteFile("my.yaml", "lake_ss:\n  lake_dir: mine\n");
  Outcome o = ExecTest({"lake", "probe", "my.yaml", "sapphire-testnet", "--to", "1 hour ago"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.config_path, "my.yaml");
  EXPECT_EQ(seen_.network, "sapphire-testnet");
  EXPECT_EQ(seen_.to_ms, kWallMs - 3'600'000);

  o = ExecTest({"-q", "lake", "grp", "leaf", "my.yaml", "sim"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "leaf ran\n");

  o = ExecTest({"-c", "my.yaml", "lake", "grp", "leaf"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "leaf ran\n");

  // Only one, and only in front: `lake` alone or elsewhere is no command.
  o = ExecTest({"lake"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: unknown command 'lake' (see 'predlake --help')\n");
  o = ExecTest({"lake", "lake", "probe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: unknown command 'lake' (see 'predlake --help')\n");
  o = ExecTest({"grp", "lake", "leaf"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_THAT(o.err, HasSubstr("unknown command 'grp lake'"));
}

TEST_F(CliTest, PositionalErrors) {
  WriteFile("my.yaml", "");
  Outcome o = ExecTest({"probe", "my.yaml", "nowhere"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_THAT(o.err, HasSubstr("unknown network 'nowhere'"));
  o = ExecTest({"probe", "absent.yml", "sim"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: cannot read config absent.yml: No such file or directory\n");
  o = ExecTest({"-c", "my.yaml", "probe", "my.yaml", "sim"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_THAT(o.err, HasSubstr("given twice"));
  o = ExecTest({"-n", "sim", "probe", "my.yaml", "sim"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_THAT(o.err, HasSubstr("given twice"));
}

TEST_F(CliTest, NowIsFrozenFromSimConfig) {
  WriteFile("a.yaml", "sim_ss:\n  now: 2024-08-01\n");
  Outcome o = ExecTest({"-c", "a.yaml", "probe", "--to", "2 days ago"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.now_ms, 1'722'470'400'000);
  EXPECT_EQ(seen_.to_ms, 1'722'470'400'000 - 2 * 86'400'000);

  WriteFile("b.yaml", "sim_ss:\n  now: now\n");
  o = ExecTest({"-c", "b.yaml", "probe"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.now_ms, kWallMs);

  // A relative sim_ss.now resolves once against the wall clock.
  WriteFile("c.yaml", "sim_ss:\n  now: 1 day ago\n");
  o = ExecTest({"-c", "c.yaml", "probe"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(seen_.now_ms, kWallMs - 86'400'000);
}

TEST_F(CliTest, BadTimeInOption) {
  Outcome o = ExecTest({"probe", "--to", "yesterday"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
  EXPECT_THAT(o.err, StartsWith("predlake: --to: cannot parse time 'yesterday': expected now"));
  EXPECT_EQ(o.out, "");
  o = ExecTest({"probe", "--to", "2024-02-30"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.err, "predlake: --to: invalid time '2024-02-30': day 30 out of range for 2024-02\n");
}

TEST_F(CliTest, TimeOptionForms) {
  ASSERT_EQ(ExecTest({"probe", "--to", "2024-07-26_01:00"}).rc, 0);
  EXPECT_EQ(seen_.to_ms, 1'721'955'600'000);
  ASSERT_EQ(ExecTest({"probe", "--to=2024-07-26T01:00:00Z"}).rc, 0);
  EXPECT_EQ(seen_.to_ms, 1'721'955'600'000);
  ASSERT_EQ(ExecTest({"probe", "--to", "1721955600000"}).rc, 0);
  EXPECT_EQ(seen_.to_ms, 1'721'955'600'000);
}

TEST_F(CliTest, CommandErrorIsOneLineWithItsExitStatus) {
  Outcome o = ExecTest({"fail"});
  EXPECT_EQ(o.rc, 3);
  EXPECT_EQ(o.err, "predlake: Binder Error: no such column LINE 1: x\n");
}

TEST_F(CliTest, QuietAnywhere) {
  Outcome o = ExecTest({"-q", "probe"});
  EXPECT_EQ(o.rc, 0);
  EXPECT_TRUE(seen_.quiet);
  EXPECT_EQ(o.out, "probe ok\n");
  EXPECT_EQ(o.err, "");  // informational output silenced
  seen_ = {};
  o = ExecTest({"probe", "--quiet"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_TRUE(seen_.quiet);
  // Errors still show when quiet.
  o = ExecTest({"-q", "fail"});
  EXPECT_EQ(o.rc, 3);
  EXPECT_TRUE(OneLine(o.err));
}

TEST_F(CliTest, JsonLogFormat) {
  Outcome o = ExecTest({"--log-format", "json", "fail"});
  EXPECT_EQ(o.rc, 3);
  ASSERT_TRUE(OneLine(o.err)) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.err);
  EXPECT_EQ(j["time"], "2027-01-15T08:00:00.000Z");  // the injected wall clock
  EXPECT_EQ(j["level"], "error");
  EXPECT_EQ(j["msg"], "Binder Error: no such column LINE 1: x");
  // An error found before the command runs carries it too.
  o = ExecTest({"--log-format", "json", "probe", "--count", "x"});
  EXPECT_EQ(nlohmann::json::parse(o.err)["time"], "2027-01-15T08:00:00.000Z");

  o = ExecTest({"--log-format=json", "frobnicate"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(nlohmann::json::parse(o.err)["level"], "error");

  o = ExecTest({"--log-format", "xml", "probe"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
  EXPECT_THAT(o.err, HasSubstr("xml"));
}

TEST_F(CliTest, ConfigShowOrigins) {
  WriteFile("ppss.yaml",
            "lake_ss:\n  lake_dir: here\n  st_timestr: 2024-07-01\nsim_ss:\n  indexing_lag: 2m\n");
  Outcome o = Exec({"-n", "sim", "config", "show", "--format", "csv"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, StartsWith("key,value,origin\n"));
  EXPECT_THAT(o.out, HasSubstr("\nconfig,ppss.yaml,default\n"));
  EXPECT_THAT(o.out, HasSubstr("\nnetwork,sim,flag\n"));
  EXPECT_THAT(o.out, HasSubstr("\nnow,2024-07-26T02:00:00Z,sim_ss.now (default)\n"));
  EXPECT_THAT(o.out, HasSubstr("\nlake_ss.lake_dir,here,ppss.yaml:2\n"));
  EXPECT_THAT(o.out, HasSubstr("\nlake_ss.st_timestr,2024-07-01,ppss.yaml:3\n"));
  EXPECT_THAT(o.out, HasSubstr("\nlake_ss.fin_timestr,now,default\n"));
  EXPECT_THAT(o.out, HasSubstr("\nsim_ss.indexing_lag,2m,ppss.yaml:5\n"));
  EXPECT_THAT(o.out, HasSubstr("\nsim_ss.pairs,\"BTC/USDT, ETH/USDT,"));
  // The window as resolved against now (sim_ss.now's default pins it).
  EXPECT_THAT(o.out, HasSubstr("\nstart,2024-07-01T00:00:00Z,lake_ss.st_timestr (ppss.yaml:3)\n"));
  EXPECT_THAT(o.out, HasSubstr("\nend,2024-07-26T02:00:00Z,lake_ss.fin_timestr (default)\n"));
  WriteFile("relative.yaml",
            "lake_ss:\n  st_timestr: 2 days ago\n  fin_timestr: 2024-07-25_12:30\n");
  o = Exec({"-c", "relative.yaml", "config", "show", "--format", "csv"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out,
              HasSubstr("\nstart,2024-07-24T02:00:00Z,lake_ss.st_timestr (relative.yaml:2)\n"));
  EXPECT_THAT(o.out,
              HasSubstr("\nend,2024-07-25T12:30:00Z,lake_ss.fin_timestr (relative.yaml:3)\n"));
  // A start that cannot be (here: after the end) is the config error a writer would give.
  WriteFile("late.yaml", "lake_ss:\n  st_timestr: 2024-07-26\n  fin_timestr: 2024-07-25\n");
  o = Exec({"-c", "late.yaml", "config", "show"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_TRUE(OneLine(o.err)) << o.err;
  EXPECT_THAT(o.err, HasSubstr("late.yaml:2"));

  o = Exec({"config", "show", "--format", "json"});
  ASSERT_EQ(o.rc, 0) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[0]["key"], "config");

  o = Exec({"config", "show", "--format", "xml"});
  EXPECT_EQ(o.rc, 2);
  EXPECT_TRUE(OneLine(o.err)) << o.err;
}

TEST_F(CliTest, ContextHelpers) {
  std::ostringstream out, err;
  Context::Init init;
  init.network = "sapphire-mainnet";
  init.now_ms = kPinnedMs;
  init.out = &out;
  init.err = &err;
  init.clock = &clock_;
  init.config.lake.st_timestr = "2 hours ago";
  init.config.lake.fin_timestr = "bogus";
  init.config.origins["lake_ss.fin_timestr"] = {config::Origin::Kind::kFile, "p.yaml", 7};
  Context ctx(init);
  // The start is checked against the end, so a bad end fails it too.
  EXPECT_FALSE(ctx.StartMs().ok());
  {
    Context::Init good = init;
    good.config.lake.fin_timestr = "now";
    EXPECT_EQ(*Context(good).StartMs(), kPinnedMs - 7'200'000);
    good.config.lake.fin_timestr = "3 hours ago";
    Result<int64_t> late = Context(good).StartMs();
    ASSERT_FALSE(late.ok());
    EXPECT_EQ(late.status().code(), StatusCode::kConfig);
    EXPECT_THAT(late.status().message(), HasSubstr("is not before lake_ss.fin_timestr"));
    good.config.lake.fin_timestr = "now";
    good.config.lake.st_timestr = "2099-01-01";
    EXPECT_THAT(Context(good).StartMs().status().message(), HasSubstr("is in the future"));
    Context ok_ctx(good);
    EXPECT_EQ(ok_ctx.CheckEndAfterStart(10, 10, "--to").code(), StatusCode::kUsage);
    EXPECT_TRUE(ok_ctx.CheckEndAfterStart(11, 10, "--to").ok());
  }
  Result<int64_t> fin = ctx.FinMs();
  ASSERT_FALSE(fin.ok());
  EXPECT_EQ(fin.status().code(), StatusCode::kConfig);
  EXPECT_THAT(fin.status().message(), StartsWith("p.yaml:7: lake_ss.fin_timestr: cannot parse"));
  EXPECT_THAT(*ctx.SubgraphUrl(), HasSubstr("sapphire-mainnet"));

  init.network = "sim";
  Context sim_ctx(init);
  EXPECT_EQ(sim_ctx.SubgraphUrl().status().code(), StatusCode::kUsage);
  // Not a terminal: progress writes nothing.
  std::unique_ptr<Progress> p = sim_ctx.MakeProgress();
  p->Update("x", 1, 2);
  p->Finish();
  EXPECT_EQ(err.str(), "");
}

// In a child process: once a signal set it, the flag is the process's for good, and the other
// tests of this executable may run in the same process (the sanitizer tree's shards).
TEST(CancellationTest, SignalSetsFlagInsteadOfKilling) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::atomic<bool>& cancelled = Context::EnableCancellation();
        const bool before = cancelled.load();
        const int raised = raise(SIGTERM);
        std::_Exit(!before && raised == 0 && cancelled.load() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace predlake::cli
