// The command framework: how a subcommand declares its options, and the Context every command runs
// with. CLI11 stays out of this header (it costs seconds of compile per including file): commands
// declare options on an OptionSet, and cli.cpp, the only file that includes CLI11, turns them into
// CLI11 options.
//
// HOW TO ADD A COMMAND
//   1. Create src/cli/commands/<stem>.cpp (one command per file) defining its handler: a function
//      that declares the options on an OptionSet and returns the function that runs the command.
//
//        #include "cli/command.hpp"
//
//        namespace predlake::cli {
//        namespace {
//        struct RawUpdateOptions {
//          std::string to = "now";
//        };
//        Status RawUpdate(Context& ctx, const RawUpdateOptions& o) {
//          ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
//          ...
//          return Status::Ok();
//        }
//        }  // namespace
//
//        RunFn RawUpdateCommand(OptionSet& args) {
//          auto o = std::make_shared<RawUpdateOptions>();
//          args.Time("--to", &o->to, "end of the window");
//          return [o](Context& ctx) { return RawUpdate(ctx, *o); };
//        }
//
//        }  // namespace predlake::cli
//
//      The module is a unity build: its command files compile eight at a time as one file, so a
//      file-local name (anonymous-namespace type, static function) must be unique in src/cli/.
//      Name them after the command (`RawUpdateOptions`, `RawUpdate`), never `Options` or `Run`.
//
//   2. Declare the handler in src/cli/commands.cpp and add its row (path, one-line help, handler)
//      to the command table there, at its place in the help order.
//
// The path is the words a user types ("raw update", "sim serve", "describe"); a group ("raw") has a
// row of its own (no handler) that gives its help line. `--help` is automatic. A command returns a
// Status: the framework prints a non-OK one as a single line `predlake: <message>` on stderr and
// exits with ExitStatusFor(code). Commands must not print errors themselves, call exit(), or let
// exceptions escape (the framework would still turn one into a single line and exit 3, but that
// hides the real code).
//
// Output rules: results go to ctx.out() (stdout); progress and informational messages go through
// ctx.log() / ctx.MakeProgress() (stderr), which honour -q, --log-format and whether stderr is a
// terminal.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
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
    bool verbose = false;  // -v: debug lines (each retry) too
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
  // The value of `--every` (update, serve): a positive duration in ms; kUsage naming --every.
  static Result<int64_t> ParseEveryArg(const std::string& text);
  // lake_ss.st_timestr / fin_timestr resolved against now_ms() (kConfig with the file position on
  // error). StartMs also refuses a start in the future or not before lake_ss.fin_timestr (kConfig),
  // so that a first run cannot record a window that ends before it begins.
  Result<int64_t> StartMs() const;
  // True when lake_ss.st_timestr moves with now ("30 days ago"): a start later than the lake's is
  // then no request and gets no warning.
  bool StartIsRelative() const;
  Result<int64_t> FinMs() const;
  // kUsage "WHAT: END is not after the start START (lake_ss.st_timestr)" when end_ms <= start_ms:
  // an explicit end (--to) that leaves nothing to do is a mistake, refused before the lake is
  // written. A lake that records an earlier start keeps it (a later start changes nothing,
  // ops::RecordedStart): then the end is measured against that one, read from the lake opened
  // read-only (kBusy after the usual wait while a writer holds it).
  Status CheckEndAfterStart(int64_t end_ms, int64_t start_ms, std::string_view what);

  // The lake folder (lake_ss.lake_dir) and the DuckDB file inside it (<lake_dir>/lake.duckdb).
  const std::string& LakeDir() const { return init_.config.lake.lake_dir; }
  std::string LakePath() const;

  // The subgraph URL of a real network (web3_pp.<network>.subgraph_url). kConfig when the config
  // has none, kUsage for the sim network (it has no URL; use the in-process simulator).
  Result<std::string> SubgraphUrl() const;

  // Writes a result set to out() in `format` (tables fit terminal_width()).
  void Write(const ResultSet& rs, OutputFormat format);

  // Installs SIGINT/SIGTERM/SIGHUP handlers (SIGHUP only when not ignored, as under nohup) that set
  // the returned flag instead of killing the process, and starts a watcher thread that, once a
  // signal came, interrupts DuckDB (duck::InterruptAll, repeated every 100 ms) so that every
  // running and later query fails with kCancelled, and that forces the exit (128 + signal) if the
  // process is still alive 1.7 s later; a second signal exits at once. Commands that loop or wait
  // poll the flag and return Status::Cancelled. Main calls it for every command; without the call
  // (tests running Run in-process) the signals keep their default effect. Safe to call more than
  // once. The flag is process-wide.
  static const std::atomic<bool>& EnableCancellation();
  // The first stop signal received (SIGINT, SIGTERM, SIGHUP), 0 when none.
  static int StopSignal();

 private:
  Init init_;
  Logger log_;
};

// "SIGINT", "SIGTERM", "SIGHUP", or "a signal".
const char* SignalName(int signo);

using RunFn = std::function<Status(Context&)>;

// One option or positional a command declares. The target is written while the command line is
// parsed and must outlive the parse (commands keep it in state their RunFn owns).
struct OptionDecl {
  enum class Kind {
    kText,         // --name VALUE, a string
    kTime,         // --name TIME, a time string (parse it in run with ctx.ParseTimeArg)
    kFormat,       // --format FORMAT, one of `choices`; the help shows the default
    kInteger,      // --name N, an integer in [min, max]; the help shows the default
    kFlag,         // --name, no value
    kPositional,   // NAME, one value
    kPositionals,  // NAME..., one or more values
  };
  Kind kind = Kind::kText;
  std::string name;  // "--to", "-q,--quiet" (CLI11's name syntax), or "SQL" for a positional
  std::string help;
  std::string type_name;             // the value's name in --help ("TIME", "N"); "" for the default
  std::vector<std::string> choices;  // kFormat
  int64_t min = std::numeric_limits<int64_t>::min();  // kInteger
  int64_t max = std::numeric_limits<int64_t>::max();  // kInteger
  bool required = false;
  std::variant<std::string*, int64_t*, bool*, std::vector<std::string>*> target;

  OptionDecl& Required() {
    required = true;
    return *this;
  }
  OptionDecl& TypeName(std::string name_in_help) {
    type_name = std::move(name_in_help);
    return *this;
  }
  OptionDecl& Range(int64_t lo, int64_t hi = std::numeric_limits<int64_t>::max()) {
    min = lo;
    max = hi;
    return *this;
  }
};

// The options and positionals of one command, in declaration order (the order --help lists them).
// The returned references stay valid while the OptionSet lives.
class OptionSet {
 public:
  OptionDecl& Text(std::string name, std::string* value, std::string help);
  // Its help lists the time-string forms (kTimeFormsHelp).
  OptionDecl& Time(std::string name, std::string* value, std::string help);
  // `--format` with the given choices (a subset of table|csv|json, or text|json); `*value` holds
  // the default.
  OptionDecl& Format(std::string* value, std::vector<std::string> choices);
  OptionDecl& Integer(std::string name, int64_t* value, std::string help);
  OptionDecl& Flag(std::string name, bool* value, std::string help);
  OptionDecl& Positional(std::string name, std::string* value, std::string help);
  OptionDecl& Positionals(std::string name, std::vector<std::string>* values, std::string help);

  const std::deque<OptionDecl>& decls() const { return decls_; }

 private:
  OptionDecl& Add(OptionDecl::Kind kind, std::string name, std::string help);
  std::deque<OptionDecl> decls_;  // a deque: references survive later additions
};

// Declares a command's options on `args` and returns the function that runs it, which owns the
// state the options write into. Called once per process, before the command line is parsed.
using Handler = std::function<RunFn(OptionSet& args)>;

// A row of the command table.
struct CommandSpec {
  std::string path;  // words separated by single spaces: "describe", "raw update", "raw"
  std::string help;  // one line, shown in `predlake --help` and at the top of the command's --help
  Handler handler;   // empty for a group ("raw"), whose row only gives its help line
  // For a command that writes the lake (through jobs::Writer): the ledger's command text of the
  // run it records, which is also what a user types to make it write: the path, or the path and a
  // flag ("validate --incremental"). Empty for a command that only reads the lake (or none). One
  // invocation records one run, and a window longer than lake_ss.checkpoint_period one per chunk.
  // (`serve --every` runs `update`'s job; its runs are named "update".)
  std::string writer_run = {};
  // False for commands that must work without a config file (version): a missing file, even an
  // explicit -c one, is not an error for them; the built-in defaults are used.
  bool needs_config = true;
};

// The help text listing time-string forms, for options that take a time.
inline constexpr const char* kTimeFormsHelp =
    "now, 'N minutes|hours|days ago', YYYY-MM-DD, YYYY-MM-DD_HH:MM[:SS[.fff]], ISO-8601, or unix "
    "ms";

// The command table (src/cli/commands.cpp): every command and group, in the order `predlake --help`
// lists them.
const std::vector<CommandSpec>& AllCommands();

}  // namespace predlake::cli
