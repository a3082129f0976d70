#include <fcntl.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "cli/command.hpp"
#include "duck/duck.hpp"
#include "lake/lake.hpp"
#include "ops/lake_info.hpp"
#include "ops/open.hpp"
namespace predlake::cli {
namespace {

// Lock-free, so that setting them from a signal handler is safe.
std::atomic<bool> g_cancelled{false};
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

// The handler wakes the watcher through this pipe (write(2) is async-signal-safe; DuckDB's
// interrupt is not meant for a handler).
int g_wake_fd = -1;

// How long the work may take to stop after the first signal before the process leaves anyway
// (the contract is 2 s; DuckDB stops a query within milliseconds of its interrupt, so this only
// fires for work that does not watch the flag).
constexpr int64_t kStopGraceMs = 1700;

extern "C" void OnCancelSignal(int signo) {
  int first = 0;
  // A second signal: leave now (the lake is safe: nothing is committed half-way).
  if (!g_stop_signal.compare_exchange_strong(first, signo)) _exit(128 + first);
  g_cancelled.store(true);
  if (g_wake_fd >= 0) {
    const char byte = 1;
    (void)!::write(g_wake_fd, &byte, 1);
  }
}

// Waits for the first signal, then interrupts DuckDB every 100 ms (a query that was just starting
// can miss one interrupt) until the process exits, and forces the exit after kStopGraceMs.
void WatchForStop(int read_fd) {
  char byte = 0;
  while (::read(read_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  const auto first = std::chrono::steady_clock::now();
  while (true) {
    duck::InterruptAll();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - first)
                            .count();
    if (waited >= kStopGraceMs) {
      const int signo = g_stop_signal.load();
      std::string line = std::string("predlake: stopped by ") + SignalName(signo) +
                         " (the work in progress did not stop in time; nothing half-done was "
                         "committed)\n";
      (void)!::write(STDERR_FILENO, line.data(), line.size());
      _exit(128 + signo);
    }
  }
}

// "file:line: key: message" for a value from the file, "key: message" for a default.
Status ConfigValueError(const config::Config& cfg, const std::string& key, const Status& st) {
  config::Origin origin = config::OriginOf(cfg, key);
  std::string prefix = origin.kind == config::Origin::Kind::kFile ? origin.Describe() + ": " : "";
  return Status::Config(prefix + key + ": " + st.message());
}

}  // namespace

Context::Context(Init init)
    : init_(std::move(init)),
      log_(*init_.err, init_.log_format, init_.quiet, init_.verbose, init_.clock) {}

Result<int64_t> Context::ParseTimeArg(std::string_view text, std::string_view what) const {
  Result<int64_t> t = ParseTime(text, now_ms());
  if (!t.ok() && !what.empty()) return t.status().WithContext(std::string(what));
  return t;
}

bool Context::StartIsRelative() const {
  const std::string& text = config().lake.st_timestr;
  Result<int64_t> a = ParseTime(text, now_ms());
  Result<int64_t> b = ParseTime(text, now_ms() + 86'400'000);
  return a.ok() && b.ok() && *a != *b;
}

Result<int64_t> Context::ParseEveryArg(const std::string& text) {
  Result<int64_t> every = ParseDuration(text);
  if (!every.ok()) return every.status().WithContext("--every");
  if (*every <= 0) return Status::Usage("--every: must be a positive duration, not '" + text + "'");
  return every;
}

Result<int64_t> Context::StartMs() const {
  const std::string& text = config().lake.st_timestr;
  Result<int64_t> t = ParseTime(text, now_ms());
  if (!t.ok()) return ConfigValueError(config(), "lake_ss.st_timestr", t.status());
  if (*t > now_ms()) {
    return ConfigValueError(
        config(), "lake_ss.st_timestr",
        Status::Config("'" + text + "' (" + FormatTime(*t) + ") is in the future (now is " +
                       FormatTime(now_ms()) + ")"));
  }
  ASSIGN_OR_RETURN(int64_t fin_ms, FinMs());
  if (*t >= fin_ms) {
    return ConfigValueError(
        config(), "lake_ss.st_timestr",
        Status::Config("'" + text + "' (" + FormatTime(*t) +
                       ") is not before lake_ss.fin_timestr '" + config().lake.fin_timestr + "' (" +
                       FormatTime(fin_ms) + ")"));
  }
  return t;
}

Status Context::CheckEndAfterStart(int64_t end_ms, int64_t start_ms, std::string_view what) {
  if (end_ms > start_ms) return Status::Ok();
  std::error_code ec;
  if (std::filesystem::exists(LakePath(), ec)) {
    // A start moved later changes nothing: the lake keeps its data, so the end is measured against
    // the lake's own start when that is earlier. Read-only, so that a refusal leaves the file as
    // it was.
    ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                     ops::OpenForRead(LakeDir(), ops::BusyRetry(log())));
    ASSIGN_OR_RETURN(std::optional<int64_t> recorded, ops::RecordedStart(*lake));
    if (recorded && *recorded < start_ms) {
      if (end_ms > *recorded) return Status::Ok();
      return Status::Usage(std::string(what) + ": " + FormatTime(end_ms) +
                           " is not after the lake's start " + FormatTime(*recorded) +
                           " (lake_ss.st_timestr " + FormatTime(start_ms) +
                           " is later and changes nothing): nothing would be done");
    }
  }
  return Status::Usage(std::string(what) + ": " + FormatTime(end_ms) + " is not after the start " +
                       FormatTime(start_ms) + " (lake_ss.st_timestr): nothing would be done");
}

Result<int64_t> Context::FinMs() const {
  Result<int64_t> t = ParseTime(config().lake.fin_timestr, now_ms());
  if (!t.ok()) return ConfigValueError(config(), "lake_ss.fin_timestr", t.status());
  return t;
}

std::string Context::LakePath() const {
  return (std::filesystem::path(LakeDir()) / lake::kDatabaseFile).string();
}

Result<std::string> Context::SubgraphUrl() const {
  if (network() == "sim") {
    return Status::Usage("the sim network has no subgraph URL (it is simulated in-process)");
  }
  auto it = config().web3.subgraph_urls.find(network());
  if (it == config().web3.subgraph_urls.end()) {
    std::string where = config().path.empty() ? "the config" : config().path;
    return Status::Config("no subgraph URL for network '" + network() + "': set web3_pp." +
                          network() + ".subgraph_url in " + where);
  }
  return it->second;
}

void Context::Write(const ResultSet& rs, OutputFormat format) {
  WriteResultSet(out(), rs, format, terminal_width());
}

const std::atomic<bool>& Context::EnableCancellation() {
  static std::once_flag once;
  std::call_once(once, [] {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      g_wake_fd = fds[1];
      std::thread(WatchForStop, fds[0]).detach();
    }
    struct sigaction sa {};
    sa.sa_handler = OnCancelSignal;
    sigemptyset(&sa.sa_mask);
    // Restarted system calls: a signal must not turn a write or a wait into a spurious error.
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // A SIGHUP ignored by the parent (nohup) stays ignored.
    struct sigaction old {};
    if (sigaction(SIGHUP, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) {
      sigaction(SIGHUP, &sa, nullptr);
    }
  });
  return g_cancelled;
}

int Context::StopSignal() { return g_stop_signal.load(); }

const char* SignalName(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

OptionDecl& OptionSet::Add(OptionDecl::Kind kind, std::string name, std::string help) {
  OptionDecl& decl = decls_.emplace_back();
  decl.kind = kind;
  decl.name = std::move(name);
  decl.help = std::move(help);
  return decl;
}

OptionDecl& OptionSet::Text(std::string name, std::string* value, std::string help) {
  OptionDecl& decl = Add(OptionDecl::Kind::kText, std::move(name), std::move(help));
  decl.target = value;
  return decl;
}

OptionDecl& OptionSet::Time(std::string name, std::string* value, std::string help) {
  OptionDecl& decl =
      Add(OptionDecl::Kind::kTime, std::move(name), std::move(help) + " (" + kTimeFormsHelp + ")");
  decl.type_name = "TIME";
  decl.target = value;
  return decl;
}

OptionDecl& OptionSet::Format(std::string* value, std::vector<std::string> choices) {
  const std::string names = fmt::format("{}", fmt::join(choices, "|"));
  OptionDecl& decl = Add(OptionDecl::Kind::kFormat, "--format", "output format: " + names);
  decl.type_name = "FORMAT";
  decl.choices = std::move(choices);
  decl.target = value;
  return decl;
}

OptionDecl& OptionSet::Integer(std::string name, int64_t* value, std::string help) {
  OptionDecl& decl = Add(OptionDecl::Kind::kInteger, std::move(name), std::move(help));
  decl.target = value;
  return decl;
}

OptionDecl& OptionSet::Flag(std::string name, bool* value, std::string help) {
  OptionDecl& decl = Add(OptionDecl::Kind::kFlag, std::move(name), std::move(help));
  decl.target = value;
  return decl;
}

OptionDecl& OptionSet::Positional(std::string name, std::string* value, std::string help) {
  OptionDecl& decl = Add(OptionDecl::Kind::kPositional, std::move(name), std::move(help));
  decl.target = value;
  return decl;
}

OptionDecl& OptionSet::Positionals(std::string name, std::vector<std::string>* values,
                                   std::string help) {
  OptionDecl& decl = Add(OptionDecl::Kind::kPositionals, std::move(name), std::move(help));
  decl.target = values;
  return decl;
}

}  // namespace predlake::cli
