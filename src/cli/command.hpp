// The command framework: how a subcommand is declared, and the Context every command runs with.
//
// HOW TO ADD A COMMAND
//   1. Create src/cli/commands/<stem>.cpp, e.g. src/cli/commands/raw_update.cpp. One command per
//   file.
//   2. In it, define the command with PREDLAKE_COMMAND(<stem>), where <stem> is exactly the file
//   name
//      without ".cpp" (the build generates the list of commands from the file names, so nothing
//      else needs editing and the linker cannot drop the file):
//
//        #include "cli/command.hpp"
//
//        namespace predlake::cli {
//        namespace {
//        struct Options {
//          std::string to = "now";
//        };
//        }  // namespace
//
//        PREDLAKE_COMMAND(raw_update) {
//          return MakeCommand<Options>(
//              "raw update", "fetch every raw table from its watermark",
//              [](CLI::App& app, Options& o) { AddTimeOption(app, "--to", o.to, "end of the
//              window"); },
//              [](Context& ctx, const Options& o) -> Status {
//                ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
//                ...
//                return Status::Ok();
//              });
//        }
//
//        }  // namespace predlake::cli
//
//   3. Re-run cmake (the build does it by itself when a file is added to the folder).
//
// The path is the words a user types ("raw update", "sim serve", "describe"); the framework creates
// the parent groups ("raw", "sim") on demand. Options are declared with CLI11 on the command's own
// CLI::App, and
// `--help` is automatic. Positional arguments are fine too (`query SQL`, `raw import PATH`). A
// command returns a Status: the framework prints a non-OK one as a single line `predlake:
// <message>` on stderr and exits with ExitStatusFor(code). Commands must not print errors
// themselves, call exit(), or let exceptions escape (the framework would still turn one into a
// single line and exit 3, but that hides the real code).
//
// Output rules: results go to ctx.out() (stdout); progress and informational messages go through
// ctx.log() / ctx.MakeProgress() (stderr), which honour -q, --log-format and whether stderr is a
// terminal.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.hpp"
#include "common/progress.hpp"
#include "common/status.hpp"
#include "common/table_format.hpp"
#include "common/time.hpp"
#include "config/config.hpp"

namespace predlake::cli {

// Everything a command may use. Built once per invocation, after the global flags and the config
// are resolved and before the command runs. Not thread-safe except where noted.
class Context {
 public:
  struct Init {
    config::Config config;
    config::Origin config_origin;   // kFlag when -c (or the positional PPSS_FILE) named the file
    std::string network;            // already validated with config::IsKnownNetwork
    config::Origin network_origin;  // where the network came from (flag, file:line, default)
    int64_t now_ms = 0;             // the frozen now
    config::Origin now_origin;      // sim_ss.now's origin when pinned by it
    bool now_is_wall_clock = true;  // false when sim_ss.now pinned it
    bool quiet = false;
    LogFormat log_format = LogFormat::kText;
    std::ostream* out = nullptr;  // not owned; must outlive the Context
    std::ostream* err = nullptr;  // not owned; must outlive the Context
    bool out_is_tty = false;
    bool err_is_tty = false;
    int terminal_width = 0;        // stdout's width when it is a terminal, else 0
    const Clock* clock = nullptr;  // the wall clock; not owned; must outlive the Context
  };
  explicit Context(Init init);

  const config::Config& config() const { return init_.config; }
  // The network this command works on: "sim", "sapphire-mainnet" or "sapphire-testnet".
  const std::string& network() const { return init_.network; }
  const config::Origin& network_origin() const { return init_.network_origin; }
  // The config file read (config().path, "" when none was read) and how it was chosen.
  const config::Origin& config_origin() const { return init_.config_origin; }

  // The command's "now", frozen once before the command starts: for network sim with sim_ss.now
  // other than "now", the resolved sim_ss.now; otherwise the wall clock at startup. Every time
  // string of this command resolves against it.
  int64_t now_ms() const { return init_.now_ms; }
  bool now_is_wall_clock() const { return init_.now_is_wall_clock; }
  const config::Origin& now_origin() const { return init_.now_origin; }
  // The wall clock, for measuring durations and stamping run records (not for resolving time
  // strings).
  const Clock& clock() const { return *init_.clock; }

  bool quiet() const { return init_.quiet; }
  std::ostream& out() { return *init_.out; }
  std::ostream& err() { return *init_.err; }
  bool out_is_tty() const { return init_.out_is_tty; }
  bool err_is_tty() const { return init_.err_is_tty; }
  // Columns available for tables on stdout: the terminal's width, or 0 (no limit) in a pipe.
  int terminal_width() const { return init_.terminal_width; }

  // Informational lines, warnings and errors on stderr (quiet drops informational lines).
  Logger& log() { return log_; }
  // A progress line on stderr, active only when stderr is a terminal and not quiet.
  std::unique_ptr<Progress> MakeProgress() {
    return std::make_unique<Progress>(err(), err_is_tty() && !quiet());
  }

  // Parses a time string against now_ms(). On failure returns kUsage; when `what` is given (e.g.
  // "--to") the message starts with it.
  Result<int64_t> ParseTimeArg(std::string_view text, std::string_view what = {}) const;
  // lake_ss.st_timestr / fin_timestr resolved against now_ms() (kConfig with the file position on
  // error).
  Result<int64_t> StartMs() const;
  Result<int64_t> FinMs() const;

  // The lake folder (lake_ss.lake_dir) and the DuckDB file inside it (<lake_dir>/lake.duckdb).
  const std::string& LakeDir() const { return init_.config.lake.lake_dir; }
  std::string LakePath() const;

  // The subgraph URL of a real network (web3_pp.<network>.subgraph_url). kConfig when the config
  // has none, kUsage for the sim network (it has no URL; use the in-process simulator).
  Result<std::string> SubgraphUrl() const;

  // Writes a result set to out() in `format` (tables fit terminal_width()).
  void Write(const ResultSet& rs, OutputFormat format);

  // Installs SIGINT/SIGTERM handlers that set the returned flag instead of killing the process; for
  // long-running commands that poll it (sim serve, loops) and return Status::Cancelled. Without
  // this call the signals keep their default effect. Safe to call more than once. The flag is
  // process-wide.
  static const std::atomic<bool>& EnableCancellation();

 private:
  Init init_;
  Logger log_;
};

using RunFn = std::function<Status(Context&)>;

// A registered command.
struct CommandSpec {
  std::string path;  // words separated by single spaces: "describe", "raw update"
  std::string help;  // one line, shown in `predlake --help` and at the top of the command's --help
  // Declares the command's options and positionals on `app` and returns the function that runs it.
  // The returned function may capture state that `app` writes into (see MakeCommand). Called once
  // per process.
  std::function<RunFn(CLI::App& app)> setup;
  // False for commands that must work without a config file (version): a missing file, even an
  // explicit -c one, is not an error for them; the built-in defaults are used.
  bool needs_config = true;
};

// Builds a CommandSpec whose options live in an `Opts` struct owned by the command: `add_options`
// binds fields of it to CLI11 options, `run` receives it filled in.
template <typename Opts>
CommandSpec MakeCommand(std::string path, std::string help,
                        std::function<void(CLI::App&, Opts&)> add_options,
                        std::function<Status(Context&, const Opts&)> run) {
  CommandSpec spec;
  spec.path = std::move(path);
  spec.help = std::move(help);
  spec.setup = [add_options = std::move(add_options),
                run = std::move(run)](CLI::App& app) -> RunFn {
    auto opts = std::make_shared<Opts>();
    if (add_options) add_options(app, *opts);
    return [opts, run](Context& ctx) { return run(ctx, *opts); };
  };
  return spec;
}

// The help text listing time-string forms, for options that take a time.
inline constexpr const char* kTimeFormsHelp =
    "now, 'N minutes|hours|days ago', YYYY-MM-DD, YYYY-MM-DD_HH:MM[:SS[.fff]], ISO-8601, or unix "
    "ms";

// Adds `--to`-style option holding a time string (parse it in run with ctx.ParseTimeArg).
CLI::Option* AddTimeOption(CLI::App& app, const std::string& name, std::string& value,
                           const std::string& help);

// Adds `--format` with the given choices (a subset of table|csv|json, or text|json) and stores the
// choice.
CLI::Option* AddFormatOption(CLI::App& app, std::string& value, std::vector<std::string> choices);

// All registered commands, in the order `predlake --help` lists them (generated from
// src/cli/commands/).
std::vector<CommandSpec> AllCommands();

}  // namespace predlake::cli

// Defines the registration function of the command in src/cli/commands/<stem>.cpp. Use it directly
// inside `namespace predlake::cli { ... }` and follow it with a body returning a CommandSpec.
#define PREDLAKE_COMMAND(stem) CommandSpec PredlakeCommand_##stem()
