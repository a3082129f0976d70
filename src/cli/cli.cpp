#include "cli/cli.hpp"

#include <signal.h>
#include <unistd.h>

// The only file that includes CLI11: commands declare their options on an OptionSet
// (cli/command.hpp), and AddOptions below turns them into CLI11 options.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include "cli/command.hpp"
#include "common/fd_stream.hpp"
#include "lake/lake.hpp"

namespace predlake::cli {
namespace {

#ifndef PREDLAKE_VERSION
#define PREDLAKE_VERSION "0.0.0"
#endif

constexpr const char* kGlobalFooter =
    "Global options go before the command: -q/--quiet, -v/--verbose, -c/--config FILE, "
    "-n/--network NAME, "
    "--log-format text|json (see 'predlake --help').";

std::vector<std::string> SplitWords(const std::string& path) {
  std::vector<std::string> words;
  std::istringstream in(path);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string Join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Messages can carry newlines (DuckDB's errors do); the contract is one line per error.
std::string OneLine(const std::string& message) {
  std::string out;
  bool space = false;
  for (char c : message) {
    if (c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) {
      if (out.back() != ' ') out += ' ';
      space = false;
      if (c == ' ') continue;
    }
    out += c;
  }
  return out;
}

std::string LowerFirst(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && (s.size() < 2 || !(s[1] >= 'A' && s[1] <= 'Z'))) {
    s[0] = static_cast<char>(s[0] - 'A' + 'a');
  }
  return s;
}

struct Globals {
  bool quiet = false;
  bool verbose = false;
  std::string config_path = "ppss.yaml";
  std::string network;
  std::string log_format = "text";
};

// What a first pass over the arguments found: the command path, and the rewritten arguments
// (pdr-backend's positional `COMMAND PPSS_FILE NETWORK` turned into -c/-n).
struct Preparsed {
  std::vector<std::string> args;
  std::vector<std::string> path;
  const CommandSpec* spec = nullptr;  // set when `path` names a command (not a group)
  bool help = false;
  size_t after_path = 0;  // index in args just past the command path
};

bool IsGlobalValueOption(const std::string& a) {
  return a == "-c" || a == "--config" || a == "-n" || a == "--network" || a == "--log-format";
}

// pdr-backend's verbs that predlake spells otherwise (`pdr dashboard` is `predlake serve`).
constexpr std::pair<std::string_view, std::string_view> kPdrBackendVerbs[] = {
    {"dashboard", "serve"},
};

// The command a mistyped or pdr-backend first word most likely meant: pdr-backend's verb's
// counterpart, else a near miss of a top-level command (config::DidYouMean), else "".
std::string NearestCommand(const std::string& word, const std::vector<CommandSpec>& specs) {
  for (const auto& [verb, ours] : kPdrBackendVerbs) {
    if (word == verb) return std::string(ours);
  }
  std::vector<std::string> names;
  for (const CommandSpec& spec : specs) {
    const std::vector<std::string> words = SplitWords(spec.path);
    if (words.empty()) continue;
    const std::string& first = words.front();
    if (std::find(names.begin(), names.end(), first) == names.end()) names.push_back(first);
  }
  return config::DidYouMean(word, names);
}

Result<Preparsed> Preparse(std::vector<std::string> args, const std::vector<CommandSpec>& specs) {
  Preparsed p;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "-h" || a == "--help") p.help = true;
  }
  bool saw_config = false, saw_network = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] != '-' || a == "-" || a == "--") break;
    // `predlake --version`, as other tools spell it, is the version command.
    if (a == "--version") {
      args[i] = "version";
      return Preparse(std::move(args), specs);
    }
    if (a == "-c" || a == "--config" || a.rfind("--config=", 0) == 0) saw_config = true;
    if (a == "-n" || a == "--network" || a.rfind("--network=", 0) == 0) saw_network = true;
    if (IsGlobalValueOption(a)) {
      if (i + 1 == args.size()) return Status::Usage(a + " needs a value (see 'predlake --help')");
      ++i;
    }
  }
  // pdr-backend's `pdr lake raw update ...`: one leading `lake` (no command starts with it) is
  // dropped.
  if (i + 1 < args.size() && args[i] == "lake") {
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
  }
  p.args = args;

  // The longest run of words that is a prefix of a registered path.
  size_t j = i;
  while (j < args.size()) {
    std::vector<std::string> candidate = p.path;
    candidate.push_back(args[j]);
    bool prefix = false;
    for (const CommandSpec& spec : specs) {
      std::vector<std::string> words = SplitWords(spec.path);
      if (words.size() >= candidate.size() &&
          std::equal(candidate.begin(), candidate.end(), words.begin())) {
        prefix = true;
        if (words.size() == candidate.size() && spec.handler) p.spec = &spec;
      }
    }
    if (!prefix) break;
    p.path = std::move(candidate);
    ++j;
    if (p.spec) break;
  }
  p.after_path = j;

  if (p.path.empty()) {
    if (i < args.size() && args[i] != "--") {
      const std::string near = NearestCommand(args[i], specs);
      return Status::Usage("unknown command '" + args[i] + "' (" +
                           (near.empty() ? "" : "did you mean '" + near + "'? ") +
                           "see 'predlake --help')");
    }
    if (!p.help) return Status::Usage("no command given (see 'predlake --help')");
    return p;
  }
  if (!p.spec) {
    if (j < args.size() && !args[j].empty() && args[j][0] != '-') {
      return Status::Usage("unknown command '" + Join(p.path) + " " + args[j] +
                           "' (see 'predlake " + Join(p.path) + " --help')");
    }
    if (!p.help) {
      std::vector<std::string> children;
      for (const CommandSpec& spec : specs) {
        std::vector<std::string> words = SplitWords(spec.path);
        if (spec.handler && words.size() > p.path.size() &&
            std::equal(p.path.begin(), p.path.end(), words.begin()) &&
            std::find(children.begin(), children.end(), words[p.path.size()]) == children.end()) {
          children.push_back(words[p.path.size()]);
        }
      }
      return Status::Usage("'" + Join(p.path) + "' needs a command: " + Join(children, ", ") +
                           " (see 'predlake " + Join(p.path) + " --help')");
    }
    return p;
  }

  // pdr-backend's order: COMMAND PPSS_FILE NETWORK ...
  if (j < args.size() && (EndsWith(args[j], ".yaml") || EndsWith(args[j], ".yml"))) {
    std::vector<std::string> front = {"-c", args[j]};
    size_t consumed = 1;
    if (saw_config) {
      return Status::Usage("the config file is given twice: with -c and as '" + args[j] + "'");
    }
    if (j + 1 < args.size() && !args[j + 1].empty() && args[j + 1][0] != '-') {
      if (saw_network) {
        return Status::Usage("the network is given twice: with -n and as '" + args[j + 1] + "'");
      }
      front.push_back("-n");
      front.push_back(args[j + 1]);
      consumed = 2;
    }
    p.args.erase(p.args.begin() + static_cast<std::ptrdiff_t>(j),
                 p.args.begin() + static_cast<std::ptrdiff_t>(j + consumed));
    p.args.insert(p.args.begin(), front.begin(), front.end());
  }
  return p;
}

std::string RootHelp(const std::vector<CommandSpec>& specs) {
  std::ostringstream out;
  out << "predlake " << PREDLAKE_VERSION
      << ": an incremental, checkpointed data lake for Ocean Predictoor\n\n"
      << "Usage: predlake [-q|-v] [-c FILE] [-n NETWORK] [--log-format text|json] COMMAND "
         "[ARGS...]\n"
      << "       predlake COMMAND PPSS_FILE NETWORK [ARGS...]   (pdr-backend's order)\n\n"
      << "Global options:\n"
      << "  -q, --quiet           silence progress and informational output (errors still go to "
         "stderr)\n"
      << "  -v, --verbose         also show each retry of the subgraph (what failed, its kind, the "
         "wait)\n"
      << "  -c, --config FILE     the ppss.yaml to read (default ./ppss.yaml; built-in defaults if "
         "it\n"
      << "                        does not exist)\n"
      << "  -n, --network NAME    " << config::KnownNetworks()
      << " (default: lake_ss.network, else sim)\n"
      << "  --log-format FORMAT   text or json (one JSON object per line on stderr)\n"
      << "  -h, --help            this help; 'predlake help COMMAND' (or 'predlake COMMAND "
         "--help')\n"
      << "                        for a command's options\n"
      << "  --version             predlake's and DuckDB's versions (as 'predlake version')\n\n"
      << "Commands:\n";
  size_t width = 0;
  for (const CommandSpec& spec : specs) {
    if (spec.handler) width = std::max(width, spec.path.size());
  }
  for (const CommandSpec& spec : specs) {
    if (!spec.handler) continue;
    out << "  " << spec.path << std::string(width - spec.path.size() + 2, ' ') << spec.help << "\n";
  }
  out << "\nTime strings: " << kTimeFormsHelp << "; all UTC.\n"
      << "Durations: 500ms, 30s, 5m, 2h, 1d.\n"
      << "Exit status: 0 ok, 1 validation failed, 2 usage or config error, 3 source or data error, "
         "4 lake busy.\n";
  return out.str();
}

std::string OriginPrefix(const config::Origin& origin) {
  if (origin.kind != config::Origin::Kind::kFile) return "";
  return origin.Describe() + ": ";
}

std::string TrimLower(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Result<Context::Init> Resolve(const Globals& g, bool config_explicit, const CommandSpec& spec,
                              const Io& io) {
  Context::Init init;
  init.config_origin.kind =
      config_explicit ? config::Origin::Kind::kFlag : config::Origin::Kind::kDefault;
  if (spec.needs_config) {
    std::error_code ec;
    if (config_explicit || std::filesystem::exists(g.config_path, ec)) {
      ASSIGN_OR_RETURN(init.config, config::LoadConfig(g.config_path));
      // Printed at once, before anything else can fail (a typo may be why it does).
      Result<LogFormat> format = ParseLogFormat(g.log_format);
      Logger warn_log(*io.err, format.ok() ? *format : LogFormat::kText, g.quiet, false, io.clock);
      for (const std::string& warning : init.config.warnings) warn_log.Warn(warning);
    }
  }

  if (spec.needs_config) {
    // A lake_dir that cannot work is a setting to fix, for readers as for writers (whether it can
    // be written is checked when a writer opens it).
    Status usable = lake::CheckLakeDir(init.config.lake.lake_dir, lake::Mode::kRead);
    if (!usable.ok()) {
      return Status::Config(OriginPrefix(config::OriginOf(init.config, "lake_ss.lake_dir")) +
                            "lake_ss.lake_dir: " + usable.message());
    }
  }

  if (!g.network.empty()) {
    init.network = g.network;
    init.network_origin.kind = config::Origin::Kind::kFlag;
  } else {
    init.network = init.config.lake.network;
    init.network_origin = config::OriginOf(init.config, "lake_ss.network");
  }
  if (!config::IsUsableNetwork(init.config, init.network)) {
    return Status::Usage(config::UnknownNetworkMessage(init.network));
  }

  const int64_t wall_ms = io.clock->NowMs();
  init.now_ms = wall_ms;
  if (init.network == "sim" && TrimLower(init.config.sim.now) != "now") {
    Result<int64_t> pinned = ParseTime(init.config.sim.now, wall_ms);
    if (!pinned.ok()) {
      return Status::Config(OriginPrefix(config::OriginOf(init.config, "sim_ss.now")) +
                            "sim_ss.now: " + pinned.status().message());
    }
    init.now_ms = *pinned;
    init.now_is_wall_clock = false;
    init.now_origin = config::OriginOf(init.config, "sim_ss.now");
  } else {
    init.now_origin.kind = config::Origin::Kind::kDefault;
    init.now_is_wall_clock = true;
  }

  init.quiet = g.quiet;
  init.verbose = g.verbose;
  ASSIGN_OR_RETURN(init.log_format, ParseLogFormat(g.log_format));
  init.out = io.out;
  init.err = io.err;
  init.out_is_tty = io.out_is_tty;
  init.err_is_tty = io.err_is_tty;
  init.terminal_width = io.terminal_width;
  init.clock = io.clock;
  return init;
}

void PrintError(const Io& io, LogFormat format, const std::string& message) {
  Logger(*io.err, format, false, false, io.clock).Error(OneLine(message));
}

// An integer in [lo, hi]. Validators see the text before CLI11 converts it, so this one also
// rejects what is not an integer. The description keeps CLI11's wording in --help.
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

CLI::Validator IntegerRange(int64_t lo, int64_t hi) {
  std::string desc = "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]";
  if (hi == kMax) desc = lo == 0 ? "NONNEGATIVE" : "INT >= " + std::to_string(lo);
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec == std::errc::invalid_argument || ptr != text.data() + text.size()) {
          return "expected an integer, got '" + text + "'";
        }
        if (ec == std::errc::result_out_of_range || v < lo || v > hi) {
          if (hi == kMax && ec != std::errc::result_out_of_range) {
            return text + " is below the minimum " + std::to_string(lo);
          }
          if (hi == kMax)
            return text + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                   "]";
          return text + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        }
        return "";
      },
      desc);
}

// An option's value, when given, must not be empty: `--to ''` is a mistake, not "the default".
CLI::Validator NonEmpty() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "expected a value, got ''" : "";
      },
      "");
}

// Declares the command's options on its CLI11 app. Targets stay owned by the command's RunFn.
void AddOptions(const OptionSet& options, CLI::App& app) {
  for (const OptionDecl& d : options.decls()) {
    using Kind = OptionDecl::Kind;
    CLI::Option* opt = nullptr;
    switch (d.kind) {
      case Kind::kText:
      case Kind::kTime:
      case Kind::kFormat:
      case Kind::kPositional:
        opt = app.add_option(d.name, *std::get<std::string*>(d.target), d.help);
        break;
      case Kind::kInteger:
        opt = app.add_option(d.name, *std::get<int64_t*>(d.target), d.help)
                  ->check(IntegerRange(d.min, d.max));
        break;
      case Kind::kFlag:
        opt = app.add_flag(d.name, *std::get<bool*>(d.target), d.help);
        break;
      case Kind::kPositionals:
        opt = app.add_option(d.name, *std::get<std::vector<std::string>*>(d.target), d.help);
        break;
    }
    if (!d.type_name.empty()) opt->type_name(d.type_name);
    if (d.kind == Kind::kFormat) opt->check(CLI::IsMember(d.choices));
    if (d.kind == Kind::kText || d.kind == Kind::kTime) opt->check(NonEmpty());
    if (d.kind == Kind::kFormat || d.kind == Kind::kInteger) opt->capture_default_str();
    if (d.required) opt->required();
  }
}

}  // namespace

int Run(const std::vector<std::string>& args, const Io& io) { return Run(args, io, AllCommands()); }

int Run(const std::vector<std::string>& args, const Io& io, const std::vector<CommandSpec>& specs) {
  // Before CLI11 runs, --log-format decides how even a usage error is printed.
  LogFormat early_format = LogFormat::kText;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i] == "--log-format" && i + 1 < args.size()) value = args[i + 1];
    if (args[i].rfind("--log-format=", 0) == 0) value = args[i].substr(13);
    if (value == "json") early_format = LogFormat::kJson;
  }

  Result<Preparsed> pre = Preparse(args, specs);
  if (!pre.ok()) {
    PrintError(io, early_format, pre.status().message());
    return pre.status().exit_status();
  }
  if (pre->path.empty()) {
    *io.out << RootHelp(specs);
    return 0;
  }

  Globals g;
  CLI::App app("an incremental, checkpointed data lake for Ocean Predictoor", "predlake");
  app.set_help_flag("-h,--help", "show this help");
  CLI::Option* quiet_opt =
      app.add_flag("-q,--quiet", g.quiet, "silence progress and informational output");
  app.add_flag("-v,--verbose", g.verbose, "also show each retry of the subgraph")
      ->excludes(quiet_opt);
  CLI::Option* config_opt =
      app.add_option("-c,--config", g.config_path, "the ppss.yaml to read (default ./ppss.yaml)");
  app.add_option("-n,--network", g.network, "network: " + config::KnownNetworks());
  app.add_option("--log-format", g.log_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.fallthrough();
  // One command per line: the words after it are its own, even one that names another command
  // (`predlake help update`).
  app.require_subcommand(0, 1);

  // Every command's RunFn stays alive while CLI11 holds its options' targets.
  std::map<std::string, CLI::App*> nodes;
  std::vector<RunFn> keep_alive;
  RunFn run;
  for (const CommandSpec& spec : specs) {
    std::vector<std::string> words = SplitWords(spec.path);
    CLI::App* parent = &app;
    std::string prefix;
    for (size_t k = 0; k < words.size(); ++k) {
      prefix += (k ? " " : "") + words[k];
      auto it = nodes.find(prefix);
      if (it != nodes.end()) {
        parent = it->second;
        continue;
      }
      // A group without a row of its own gets a plain help line.
      std::string help = k + 1 < words.size() ? words[k] + " commands" : spec.help;
      parent = parent->add_subcommand(words[k], help);
      nodes[prefix] = parent;
    }
    if (!spec.handler) {
      parent->description(spec.help);
      continue;
    }
    parent->footer(kGlobalFooter);
    OptionSet options;
    RunFn fn = spec.handler(options);
    AddOptions(options, *parent);
    if (&spec == pre->spec) run = fn;
    keep_alive.push_back(std::move(fn));
  }

  std::vector<std::string> reversed(pre->args.rbegin(), pre->args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    *io.out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    *io.out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    PrintError(io, early_format,
               LowerFirst(e.what()) + " (see 'predlake " + Join(pre->path) + " --help')");
    return ExitStatusFor(StatusCode::kUsage);
  }

  Result<Context::Init> init = Resolve(g, config_opt->count() > 0, *pre->spec, io);
  if (!init.ok()) {
    PrintError(io, early_format, init.status().message());
    return init.status().exit_status();
  }
  Context ctx(std::move(*init));
  if (!run) {
    PrintError(io, ctx.log().format(), "command '" + pre->spec->path + "' has no implementation");
    return ExitStatusFor(StatusCode::kInternal);
  }
  Status st = run(ctx);
  ctx.out().flush();
  if (!st.ok()) {
    if (const int signo = Context::StopSignal(); signo != 0) {
      // Stopped by a signal: the work was interrupted and rolled back (or the loop stopped),
      // and the exit status says which signal, as a shell reports a process it killed.
      std::string message = OneLine(st.message());
      if (size_t at = message.find("by a signal"); at != std::string::npos) {
        message.replace(at + 3, 8, SignalName(signo));
      } else if (message.find(SignalName(signo)) == std::string::npos) {
        message = pre->spec->path + " stopped by " + SignalName(signo) + ": " + message;
      }
      ctx.log().Error(message);
      return 128 + signo;
    }
    ctx.log().Error(OneLine(st.message()));
    return st.exit_status();
  }
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  // A closed pipe on stdout ends the program quietly, as it does other Unix tools (`predlake query
  // ... | head -1`), even when the parent left SIGPIPE ignored.
  ::signal(SIGPIPE, SIG_DFL);
  Context::EnableCancellation();
  SystemClock clock;
  // Our own streams on fds 1 and 2, so that a failed write (a full disk, /dev/full) is noticed and
  // turns the exit status into a failure.
  FdOstream out(STDOUT_FILENO, /*unit_buffered=*/false);
  FdOstream err(STDERR_FILENO, /*unit_buffered=*/true);
  Io io;
  io.out = &out;
  io.err = &err;
  io.out_is_tty = isatty(STDOUT_FILENO) == 1;
  io.err_is_tty = isatty(STDERR_FILENO) == 1;
  io.terminal_width = TerminalWidth(STDOUT_FILENO);
  io.clock = &clock;
  int rc = ExitStatusFor(StatusCode::kInternal);
  try {
    rc = Run(args, io);
  } catch (const std::exception& e) {
    out.flush();
    err << "predlake: internal error: " << OneLine(e.what()) << "\n";
  } catch (...) {
    out.flush();
    err << "predlake: internal error: unknown exception\n";
  }
  if (const int out_error = out.Finish(); out_error != 0) {
    // A reader that went away wants nothing more: no message (the shell reports 141).
    if (out_error == EPIPE) return 128 + SIGPIPE;
    err << "predlake: cannot write the output to stdout: " << std::strerror(out_error) << "\n";
    if (rc == 0) rc = ExitStatusFor(StatusCode::kData);
  }
  // Messages that could not be written cannot be reported either; the exit status still tells.
  if (err.Finish() != 0 && rc == 0) rc = ExitStatusFor(StatusCode::kData);
  return rc;
}

}  // namespace predlake::cli
