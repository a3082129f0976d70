#include <signal.h>

#include <filesystem>

#include "cli/command.hpp"
#include "lake/lake.hpp"

namespace predlake::cli {
namespace {

// Lock-free, so that setting it from a signal handler is safe.
std::atomic<bool> g_cancelled{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void OnCancelSignal(int) { g_cancelled.store(true); }

// "file:line: key: message" for a value from the file, "key: message" for a default.
Status ConfigValueError(const config::Config& cfg, const std::string& key, const Status& st) {
  config::Origin origin = config::OriginOf(cfg, key);
  std::string prefix = origin.kind == config::Origin::Kind::kFile ? origin.Describe() + ": " : "";
  return Status::Config(prefix + key + ": " + st.message());
}

}  // namespace

Context::Context(Init init)
    : init_(std::move(init)), log_(*init_.err, init_.log_format, init_.quiet) {}

Result<int64_t> Context::ParseTimeArg(std::string_view text, std::string_view what) const {
  Result<int64_t> t = ParseTime(text, now_ms());
  if (!t.ok() && !what.empty()) return t.status().WithContext(std::string(what));
  return t;
}

Result<int64_t> Context::StartMs() const {
  Result<int64_t> t = ParseTime(config().lake.st_timestr, now_ms());
  if (!t.ok()) return ConfigValueError(config(), "lake_ss.st_timestr", t.status());
  return t;
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
  struct sigaction sa {};
  sa.sa_handler = OnCancelSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_cancelled;
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
  std::string names;
  for (const std::string& c : choices) names += (names.empty() ? "" : "|") + c;
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
