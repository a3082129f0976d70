#include "config/config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <variant>

#include "common/time.hpp"

namespace predlake::config {
namespace {

// Time strings in the file are only checked for syntax at load time; relative ones ("30 days ago")
// are resolved later against the command's frozen now. A far-future now keeps them from
// underflowing here.
constexpr int64_t kSyntaxCheckNowMs = 4'102'444'800'000;  // 2100-01-01

constexpr const char* kNetworks[] = {"sim", "sapphire-mainnet", "sapphire-testnet"};

constexpr const char* kTimeframes[] = {"5m", "1h"};

constexpr const char* kExchanges[] = {"binance"};

// Where a key's value lives in Config. Each row's alternative matches its kind (a test reads every
// row); an accessor is only read through when formatting a const Config.
using Field = std::variant<std::monostate, std::string* (*)(Config&), bool* (*)(Config&),
                           int* (*)(Config&), int64_t* (*)(Config&), uint64_t* (*)(Config&),
                           double* (*)(Config&), std::vector<std::string>* (*)(Config&),
                           std::map<std::string, std::string>* (*)(Config&)>;

struct Row {
  const char* key;
  ValueKind kind;
  Field field;
  const char* doc;
  int64_t min = 0;  // kInteger; kDuration: the shortest value accepted
  int64_t max = 0;
};

// The key table. The defaults are the member initializers of the structs in config.hpp (code that
// builds a SimConfig directly gets them too); Keys() formats them from a default Config.
const Row kRows[] = {
    {"lake_ss.lake_dir", ValueKind::kPath, +[](Config& c) { return &c.lake.lake_dir; },
     "folder of the lake; the DuckDB file is `<lake_dir>/lake.duckdb`"},
    {"lake_ss.st_timestr", ValueKind::kTime, +[](Config& c) { return &c.lake.st_timestr; },
     "where the lake starts: the first fetch of each raw table starts here, and the first ETL run"},
    {"lake_ss.fin_timestr", ValueKind::kTime, +[](Config& c) { return &c.lake.fin_timestr; },
     "the default end of `update`, `raw update`, `etl update`, `etl rebuild` (`--to` overrides)"},
    {"lake_ss.network", ValueKind::kNetwork, +[](Config& c) { return &c.lake.network; },
     "the default network (`-n` overrides)"},
    {"lake_ss.export_after_publish", ValueKind::kBoolean,
     +[](Config& c) { return &c.lake.export_after_publish; },
     "write a Parquet snapshot (`predlake export`) after every successful writing run, so that "
     "`serve` shows it"},
    {"lake_ss.export_db_data_to_parquet_files", ValueKind::kBoolean,
     +[](Config& c) { return &c.lake.export_db_data_to_parquet_files; },
     "pdr-backend's name for `export_after_publish`: honoured when that key is not set; both "
     "set to different values is an error"},
    {"lake_ss.export_grace", ValueKind::kDuration,
     +[](Config& c) { return &c.lake.export_grace_ms; },
     "how long a snapshot stays on disk after a newer one became current (for its readers)"},
    {"lake_ss.retry_budget", ValueKind::kDuration,
     +[](Config& c) { return &c.lake.retry_budget_ms; },
     "how long one subgraph query keeps retrying lasting errors (its backoff waits summed)"},
    {"lake_ss.feed_source", ValueKind::kString, +[](Config& c) { return &c.lake.feed_source; },
     "the price source of a feed whose data NFT names none (mainnet's feeds have no NFT data; "
     "docs/raw.md)"},
    {"lake_ss.ohlcv", ValueKind::kBoolean, +[](Config& c) { return &c.lake.ohlcv; },
     "fetch the exchange's candles (pdr_ohlcv) and check every trueval against them "
     "(docs/ohlcv.md)"},
    {"lake_ss.ohlcv_exchange", ValueKind::kString,
     +[](Config& c) { return &c.lake.ohlcv_exchange; },
     "the exchange whose candles are fetched, for the feeds whose source it is (binance)"},
    {"lake_ss.ohlcv_base_url", ValueKind::kString,
     +[](Config& c) { return &c.lake.ohlcv_base_url; },
     "the exchange's REST API on real networks (Binance's spot API shape; `sim` answers "
     "in-process)"},
    {"lake_ss.ohlcv_gap_after", ValueKind::kDuration,
     +[](Config& c) { return &c.lake.ohlcv_gap_after_ms; },
     "a candle still missing this long after it closed (by the exchange's clock) is recorded as "
     "a known gap and its stream moves past it (docs/ohlcv.md)"},
    {"lake_ss.checkpoint_period", ValueKind::kDuration,
     +[](Config& c) { return &c.lake.checkpoint_period_ms; },
     "a long fetch or ETL window (a first `update`, a backfill) runs in chunks of this length, "
     "each committed with its watermarks or checkpoint (at least 1m)",
     60'000},
    {"lake_ss.memory_limit", ValueKind::kMemory, +[](Config& c) { return &c.lake.memory_limit; },
     "DuckDB's memory limit for the writing commands (update, raw, etl, export); past it DuckDB "
     "spills to <lake_dir>/lake.duckdb.tmp/ (at least 128MB)",
     128},
    {"lake_ss.feeds", ValueKind::kIgnored, {}, "pdr-backend's; predlake fetches every feed"},
    {"lake_ss.timeframe", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"lake_ss.api", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"lake_ss.parquet_dir", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"lake_ss.seconds_between_parquet_exports", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"lake_ss.number_of_files_after_which_re_export_db", ValueKind::kIgnored, {}, "pdr-backend's"},

    {"web3_pp.<network>.subgraph_url", ValueKind::kUrl,
     +[](Config& c) { return &c.web3.subgraph_urls; },
     "the subgraph of a real network (default: the public Ocean subgraphs)"},
    {"web3_pp.<network>.*",
     ValueKind::kIgnored,
     {},
     "pdr-backend's other keys of a network (`rpc_url`, `address_file`, ...)"},
    {"web3_pp.*", ValueKind::kIgnored, {}, "pdr-backend's other entries (`network`, ...)"},

    {"sim_ss.seed", ValueKind::kSeed, +[](Config& c) { return &c.sim.seed; }, "the world's seed"},
    {"sim_ss.now", ValueKind::kTime, +[](Config& c) { return &c.sim.now; },
     "pins the simulated now (`now` follows the wall clock)"},
    {"sim_ss.indexing_lag", ValueKind::kDuration, +[](Config& c) { return &c.sim.indexing_lag_ms; },
     "how far the simulated subgraph's indexed head trails now"},
    {"sim_ss.start", ValueKind::kTime, +[](Config& c) { return &c.sim.start; },
     "no simulated events before this"},
    {"sim_ss.predictoors", ValueKind::kInteger, +[](Config& c) { return &c.sim.num_predictoors; },
     "number of predictoors", 1, 100'000},
    {"sim_ss.pairs", ValueKind::kPairs, +[](Config& c) { return &c.sim.pairs; },
     "pairs of the feeds"},
    {"sim_ss.timeframes", ValueKind::kTimeframes, +[](Config& c) { return &c.sim.timeframes; },
     "timeframes of the feeds"},
    {"sim_ss.source", ValueKind::kString, +[](Config& c) { return &c.sim.source; },
     "the feeds' price source"},
    {"sim_ss.nftless_feeds", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.nftless_feeds; },
     "share of the feeds whose token has `nft: null` (no NFT data), as on mainnet"},
    {"sim_ss.unsettled_feeds", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.unsettled_feeds; },
     "share of the feeds whose contract reads `secondsPerEpoch` 0 for the first 1-4 hours (its "
     "settings event not indexed yet)"},
    {"sim_ss.resubmitted_predictions", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.resubmitted_predictions; },
     "share of the predictions re-submitted with a new stake later within the epoch (the "
     "subgraph overwrites the entity)"},
    {"sim_ss.max_response_mb", ValueKind::kInteger,
     +[](Config& c) { return &c.sim.max_response_mb; },
     "a response larger than this is abandoned with a GraphQL error", 1, 1024},
    {"sim_ss.wrong_truevals", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.wrong_truevals; },
     "share of the slots whose trueval is made wrong on purpose (the candles move the other way)"},
    {"sim_ss.faults.http_5xx", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.http_5xx; }, "share of requests answered with a 5xx"},
    {"sim_ss.faults.timeout", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.timeout; },
     "share of requests answered after the client's timeout"},
    {"sim_ss.faults.http_429", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.http_429; }, "share of requests answered with a 429"},
    {"sim_ss.faults.graphql_error", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.graphql_error; },
     "share of requests answered with GraphQL `errors`"},
    {"sim_ss.faults.malformed", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.malformed; },
     "share of requests answered with truncated or malformed JSON"},
    {"sim_ss.faults.lagging_replica", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.lagging_replica; },
     "share of requests answered by a replica `replica_lag` behind the head"},
    {"sim_ss.faults.replica_lag", ValueKind::kDuration,
     +[](Config& c) { return &c.sim.faults.replica_lag_ms; },
     "how far the lagging replica's indexed head trails the head"},
    {"sim_ss.faults.null_head_timestamp", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.null_head_timestamp; },
     "share of requests whose `_meta.block.timestamp` is null"},
    {"sim_ss.faults.throttle_burst", ValueKind::kProbability,
     +[](Config& c) { return &c.sim.faults.throttle_burst; },
     "share of request groups answered with throttling errors (overloaded, too expensive, ...)"},
    {"sim_ss.faults.throttle_burst_length", ValueKind::kInteger,
     +[](Config& c) { return &c.sim.faults.throttle_burst_length; },
     "requests in a throttling burst", 1, 1000},
    {"sim_ss.faults.seed", ValueKind::kSeed, +[](Config& c) { return &c.sim.faults.seed; },
     "the seed of the fault draws"},
    {"sim_ss.log_dir", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"sim_ss.test_n", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"sim_ss.tradetype", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"sim_ss.use_own_model", ValueKind::kIgnored, {}, "pdr-backend's"},
    {"sim_ss.*",
     ValueKind::kIgnored,
     {},
     "pdr-backend's other simulation keys, of any version (`do_plot`, `final_img_filebase`, ...)"},
    {"predictoor_ss.my_addresses", ValueKind::kAddresses,
     +[](Config& c) { return &c.predictoor.my_addresses; },
     "your predictoor addresses (0x...): `serve` pins them first on the leaderboard, with a total"},
    {"predictoor_ss.*", ValueKind::kIgnored, {}, "pdr-backend's other predictoor keys"},
};

constexpr std::string_view kNetworkSegment = "<network>";

std::string Join(const std::vector<std::string>& items) {
  std::string out = fmt::format("{}", fmt::join(items, ", "));
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

const Row* FindRow(std::string_view key) {
  for (const Row& row : kRows) {
    if (key == row.key) return &row;
  }
  return nullptr;
}

// True when some row lies inside the section `pattern` ("sim_ss.faults", "web3_pp.<network>").
bool IsSection(const std::string& pattern) {
  for (const Row& row : kRows) {
    if (StartsWith(row.key, pattern + ".")) return true;
  }
  return false;
}

// The keys of a section a file may set, for "unknown key" messages: each row's next segment after
// the section, once, in table order (a subsection counts as one key; ignored rows do not count).
std::vector<std::string> KnownKeyList(const std::string& pattern) {
  std::vector<std::string> names;
  for (const Row& row : kRows) {
    std::string_view key = row.key;
    if (row.kind == ValueKind::kIgnored || !StartsWith(key, pattern + ".")) continue;
    std::string_view rest = key.substr(pattern.size() + 1);
    std::string name(rest.substr(0, rest.find('.')));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// KnownKeyList without placeholders (<network>): the names a file can spell.
std::vector<std::string> SpelledKeyList(const std::string& pattern) {
  std::vector<std::string> names = KnownKeyList(pattern);
  std::erase_if(names, [](const std::string& n) { return n.find('<') != std::string::npos; });
  return names;
}

std::string KnownKeys(const std::string& pattern) { return Join(KnownKeyList(pattern)); }

// The sections predlake reads: each row's first segment, once.
std::vector<std::string> SectionNames() {
  std::vector<std::string> names;
  for (const Row& row : kRows) {
    std::string_view key = row.key;
    std::string name(key.substr(0, key.find('.')));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string Normalised(const std::string& word) {
  std::string out = word;
  for (char& c : out) {
    c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// A memory size as DuckDB's memory_limit takes it: a number (with an optional fraction) and a unit
// KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), any case, an optional
// space between. Returns the bytes.
Result<int64_t> ParseMemorySize(std::string_view text) {
  auto bad = [&] {
    return Status::Config(fmt::format("'{}' is not a memory size (e.g. 512MB, 1GB, 1.5GiB)", text));
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  const std::string number(text.substr(0, i));
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      std::count(number.begin(), number.end(), '.') > 1) {
    return bad();
  }
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit;
  for (char c : text.substr(i)) {
    unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"kb", 1e3},     {"mb", 1e6},        {"gb", 1e9},           {"tb", 1e12},
      {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = std::strtod(number.c_str(), nullptr) * scale;
    if (bytes > 1e15) return bad();
    return static_cast<int64_t>(bytes);
  }
  return bad();
}

// The dotted key of a row with <network> replaced by the network's name.
std::string Dotted(std::string_view key, const std::string& network) {
  std::string out(key);
  size_t at = out.find(kNetworkSegment);
  if (at != std::string::npos) out.replace(at, kNetworkSegment.size(), network);
  return out;
}

std::string FormatValue(const Row& row, const Config& cfg_const) {
  // The accessors take a mutable Config; they are only read through here.
  Config& cfg = const_cast<Config&>(cfg_const);
  switch (row.kind) {
    case ValueKind::kString:
    case ValueKind::kPath:
    case ValueKind::kTime:
    case ValueKind::kNetwork:
    case ValueKind::kMemory:
      return *std::get<std::string* (*)(Config&)>(row.field)(cfg);
    case ValueKind::kDuration:
      return FormatDuration(*std::get<int64_t* (*)(Config&)>(row.field)(cfg));
    case ValueKind::kInteger:
      return std::to_string(*std::get<int* (*)(Config&)>(row.field)(cfg));
    case ValueKind::kSeed:
      return std::to_string(*std::get<uint64_t* (*)(Config&)>(row.field)(cfg));
    case ValueKind::kProbability:
      return fmt::format("{}", *std::get<double* (*)(Config&)>(row.field)(cfg));
    case ValueKind::kBoolean:
      return *std::get<bool* (*)(Config&)>(row.field)(cfg) ? "true" : "false";
    case ValueKind::kPairs:
    case ValueKind::kTimeframes:
    case ValueKind::kAddresses:
      return Join(*std::get<std::vector<std::string>* (*)(Config&)>(row.field)(cfg));
    case ValueKind::kUrl: {
      std::vector<std::string> networks;
      for (const auto& entry :
           *std::get<std::map<std::string, std::string>* (*)(Config&)>(row.field)(cfg)) {
        networks.push_back(entry.first);
      }
      return "set for " + Join(networks);
    }
    case ValueKind::kIgnored:
      return "";
  }
  return "";
}

std::string TypeOf(const Row& row) {
  switch (row.kind) {
    case ValueKind::kString:
      return "string";
    case ValueKind::kPath:
      return "path";
    case ValueKind::kTime:
      return "time";
    case ValueKind::kNetwork:
      return "network: " + KnownNetworks() + ", or one with a subgraph_url";
    case ValueKind::kUrl:
      return "http(s) URL";
    case ValueKind::kDuration:
      return "duration";
    case ValueKind::kMemory:
      return "memory size (512MB, 1GB)";
    case ValueKind::kInteger:
      return fmt::format("integer in [{}, {}]", row.min, row.max);
    case ValueKind::kSeed:
      return "unsigned 64-bit integer";
    case ValueKind::kProbability:
      return "probability";
    case ValueKind::kBoolean:
      return "boolean";
    case ValueKind::kPairs:
      return "list of pairs (BASE/QUOTE)";
    case ValueKind::kAddresses:
      return "list of addresses (0x and 40 hex digits; may be empty)";
    case ValueKind::kTimeframes: {
      std::vector<std::string> names(std::begin(kTimeframes), std::end(kTimeframes));
      return "list of timeframes: " + Join(names);
    }
    case ValueKind::kIgnored:
      return "ignored";
  }
  return "";
}

// Reads the file's sections against the key table, with the file name for messages and the
// origins map to fill.
class Reader {
 public:
  Reader(const std::string& file, Config& cfg) : file_(file), cfg_(cfg) {}

  Status Error(const YAML::Mark& mark, const std::string& msg) const {
    int line = mark.is_null() ? 1 : mark.line + 1;
    return Status::Config(fmt::format("{}:{}: {}", file_, line, msg));
  }

  // Reads the mapping `node` as the section `pattern` of the table ("" for the top level,
  // "web3_pp.<network>" for a network's section). `name` is the section as the file spells it
  // ("web3_pp.sapphire-testnet"), `network` the network's name inside a <network> section.
  Status Section(const YAML::Node& node, const std::string& pattern, const std::string& name,
                 const std::string& network) {
    const std::string shown = pattern.empty() ? "the top level" : name;
    if (node.IsNull()) return Status::Ok();
    if (!node.IsMap()) return Error(node.Mark(), shown + ": expected a mapping");
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      // Copies: yaml-cpp's iterator hands out a temporary pair, so references into it dangle.
      const YAML::Node k = it->first;
      const YAML::Node v = it->second;
      if (!k.IsScalar()) return Error(k.Mark(), shown + ": keys must be plain strings");
      const std::string& key = k.Scalar();
      if (!seen.insert(key).second) {
        return Error(k.Mark(), fmt::format("duplicate key '{}' in {}", key, shown));
      }
      const std::string child = pattern.empty() ? key : pattern + "." + key;
      const std::string child_name = pattern.empty() ? key : name + "." + key;
      if (const Row* row = FindRow(child)) {
        if (row->kind == ValueKind::kIgnored) continue;
        RETURN_IF_ERROR(Value(*row, v, child_name, network));
        continue;
      }
      if (IsSection(child)) {
        RETURN_IF_ERROR(Section(v, child, child_name, network));
        continue;
      }
      const std::string any_network = pattern + "." + std::string(kNetworkSegment);
      if (v.IsMap() && !pattern.empty() && IsSection(any_network)) {
        RETURN_IF_ERROR(Section(v, any_network, child_name, key));
        continue;
      }
      if (pattern.empty() || FindRow(pattern + ".*")) {
        // Ignored, as pdr-backend's own keys are; but a near miss of ours is most likely a typo.
        std::string near =
            DidYouMean(key, pattern.empty() ? SectionNames() : SpelledKeyList(pattern));
        if (!near.empty()) {
          cfg_.warnings.push_back(fmt::format("{}:{}: '{}' is ignored; did you mean '{}'?", file_,
                                              k.Mark().is_null() ? 1 : k.Mark().line + 1,
                                              child_name, near));
        }
        continue;
      }
      std::string near = DidYouMean(key, SpelledKeyList(pattern));
      return Error(k.Mark(), fmt::format("unknown key '{}' in {} ({}known: {})", key, name,
                                         near.empty() ? "" : "did you mean '" + near + "'? ",
                                         KnownKeys(pattern)));
    }
    return Status::Ok();
  }

 private:
  Status ValueError(const YAML::Node& node, const std::string& key, const std::string& msg) const {
    return Error(node.Mark(), fmt::format("{}: {}", key, msg));
  }

  void Record(const std::string& key, const YAML::Node& node) {
    Origin o;
    o.kind = Origin::Kind::kFile;
    o.file = file_;
    o.line = node.Mark().is_null() ? 0 : node.Mark().line + 1;
    cfg_.origins[key] = o;
  }

  // Checks `node` against the row's kind and stores it; `key` is the dotted key as in the file.
  Status Value(const Row& row, const YAML::Node& node, const std::string& key,
               const std::string& network) {
    switch (row.kind) {
      case ValueKind::kString:
      case ValueKind::kPath:
      case ValueKind::kTime:
      case ValueKind::kNetwork: {
        std::string text;
        RETURN_IF_ERROR(String(node, key, text));
        if (row.kind == ValueKind::kPath) {
          const char* home = std::getenv("HOME");
          Result<std::string> expanded = ExpandHome(text, home ? home : "");
          if (!expanded.ok()) return ValueError(node, key, expanded.status().message());
          text = std::move(expanded).value();
        }
        if (row.kind == ValueKind::kTime) {
          Result<int64_t> t = ParseTime(text, kSyntaxCheckNowMs);
          if (!t.ok()) return ValueError(node, key, t.status().message());
        }
        // Any other network is checked once the whole file is read (its web3_pp section may
        // come later): see LoadConfig.
        *std::get<std::string* (*)(Config&)>(row.field)(cfg_) = text;
        break;
      }
      case ValueKind::kUrl: {
        std::string url;
        RETURN_IF_ERROR(String(node, key, url));
        if (!StartsWith(url, "http://") && !StartsWith(url, "https://")) {
          return ValueError(node, key, fmt::format("'{}' is not an http:// or https:// URL", url));
        }
        (*std::get<std::map<std::string, std::string>* (*)(Config&)>(row.field)(cfg_))[network] =
            url;
        break;
      }
      case ValueKind::kDuration: {
        std::string text;
        RETURN_IF_ERROR(String(node, key, text));
        Result<int64_t> ms = ParseDuration(text);
        if (!ms.ok()) return ValueError(node, key, ms.status().message());
        if (*ms < row.min) {
          return ValueError(node, key,
                            fmt::format("'{}' is shorter than {}", text, FormatDuration(row.min)));
        }
        *std::get<int64_t* (*)(Config&)>(row.field)(cfg_) = *ms;
        break;
      }
      case ValueKind::kMemory: {
        std::string text;
        RETURN_IF_ERROR(String(node, key, text));
        Result<int64_t> bytes = ParseMemorySize(text);
        if (!bytes.ok()) return ValueError(node, key, bytes.status().message());
        if (*bytes < row.min * 1'000'000) {
          return ValueError(node, key, fmt::format("'{}' is less than {}MB", text, row.min));
        }
        *std::get<std::string* (*)(Config&)>(row.field)(cfg_) = text;
        break;
      }
      case ValueKind::kInteger: {
        int v = 0;
        RETURN_IF_ERROR(
            Integer<int>(node, key, static_cast<int>(row.min), static_cast<int>(row.max), v));
        *std::get<int* (*)(Config&)>(row.field)(cfg_) = v;
        break;
      }
      case ValueKind::kSeed: {
        uint64_t v = 0;
        RETURN_IF_ERROR(Integer<uint64_t>(node, key, 0, std::numeric_limits<uint64_t>::max(), v));
        *std::get<uint64_t* (*)(Config&)>(row.field)(cfg_) = v;
        break;
      }
      case ValueKind::kProbability: {
        double v = 0;
        RETURN_IF_ERROR(Probability(node, key, v));
        *std::get<double* (*)(Config&)>(row.field)(cfg_) = v;
        break;
      }
      case ValueKind::kBoolean: {
        // YAML 1.1's capitalised spellings too: pdr-backend's files (PyYAML) write `True`.
        const std::string text = node.IsScalar() ? node.Scalar() : "";
        const bool yes = text == "true" || text == "True" || text == "TRUE";
        if (!yes && text != "false" && text != "False" && text != "FALSE") {
          return ValueError(node, key, fmt::format("expected true or false, got '{}'", text));
        }
        *std::get<bool* (*)(Config&)>(row.field)(cfg_) = yes;
        break;
      }
      case ValueKind::kPairs:
      case ValueKind::kTimeframes: {
        std::vector<std::string> items;
        RETURN_IF_ERROR(StringList(node, key, items));
        for (const std::string& item : items) {
          RETURN_IF_ERROR(row.kind == ValueKind::kPairs ? CheckPair(node, key, item)
                                                        : CheckTimeframe(node, key, item));
        }
        *std::get<std::vector<std::string>* (*)(Config&)>(row.field)(cfg_) = std::move(items);
        break;
      }
      case ValueKind::kAddresses: {
        std::vector<std::string> items;
        if (!(node.IsSequence() && node.size() == 0)) {
          RETURN_IF_ERROR(StringList(node, key, items));
        }
        for (std::string& item : items) {
          RETURN_IF_ERROR(CheckAddress(node, key, item));
          for (char& c : item) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        *std::get<std::vector<std::string>* (*)(Config&)>(row.field)(cfg_) = std::move(items);
        break;
      }
      case ValueKind::kIgnored:
        return Status::Ok();
    }
    Record(key, node);
    return Status::Ok();
  }

  Status String(const YAML::Node& node, const std::string& key, std::string& out) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
      return ValueError(node, key, "expected a non-empty string");
    }
    out = node.Scalar();
    return Status::Ok();
  }

  template <typename Int>
  Status Integer(const YAML::Node& node, const std::string& key, Int lo, Int hi, Int& out) const {
    std::string text = node.IsScalar() ? node.Scalar() : "";
    Int v{};
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec == std::errc::invalid_argument || ptr != text.data() + text.size()) {
      return ValueError(node, key, fmt::format("expected an integer, got '{}'", text));
    }
    if (ec == std::errc::result_out_of_range || v < lo || v > hi) {
      return ValueError(node, key, fmt::format("{} is out of range [{}, {}]", text, lo, hi));
    }
    out = v;
    return Status::Ok();
  }

  Status Probability(const YAML::Node& node, const std::string& key, double& out) const {
    std::string text = node.IsScalar() ? node.Scalar() : "";
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
      return ValueError(node, key, fmt::format("expected a number in [0, 1], got '{}'", text));
    }
    if (!(v >= 0.0 && v <= 1.0)) {
      return ValueError(node, key, fmt::format("{} is out of range [0, 1]", text));
    }
    out = v;
    return Status::Ok();
  }

  // A YAML list of strings, or one scalar holding them separated by spaces or commas.
  Status StringList(const YAML::Node& node, const std::string& key,
                    std::vector<std::string>& out) const {
    std::vector<std::string> items;
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) {
        if (!item.IsScalar() || item.Scalar().empty()) {
          return ValueError(item, key, "expected a list of strings");
        }
        items.push_back(item.Scalar());
      }
    } else if (node.IsScalar()) {
      std::string text = node.Scalar();
      std::replace(text.begin(), text.end(), ',', ' ');
      std::istringstream in(text);
      for (std::string word; in >> word;) items.push_back(word);
    } else {
      return ValueError(node, key, "expected a list of strings");
    }
    if (items.empty()) return ValueError(node, key, "must not be empty");
    std::set<std::string> seen;
    for (const std::string& item : items) {
      if (!seen.insert(item).second) return ValueError(node, key, "duplicate entry '" + item + "'");
    }
    out = std::move(items);
    return Status::Ok();
  }

  Status CheckPair(const YAML::Node& node, const std::string& key, const std::string& pair) const {
    size_t slash = pair.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == pair.size() ||
        pair.find('/', slash + 1) != std::string::npos) {
      return ValueError(node, key, fmt::format("'{}' is not a pair like BTC/USDT", pair));
    }
    return Status::Ok();
  }

  Status CheckAddress(const YAML::Node& node, const std::string& key,
                      const std::string& address) const {
    const bool ok = address.size() == 42 && address[0] == '0' && address[1] == 'x' &&
                    std::all_of(address.begin() + 2, address.end(), [](char c) {
                      return std::isxdigit(static_cast<unsigned char>(c)) != 0;
                    });
    if (ok) return Status::Ok();
    return ValueError(node, key,
                      fmt::format("'{}' is not an address (0x and 40 hex digits)", address));
  }

  Status CheckTimeframe(const YAML::Node& node, const std::string& key,
                        const std::string& tf) const {
    if (std::find(std::begin(kTimeframes), std::end(kTimeframes), tf) != std::end(kTimeframes)) {
      return Status::Ok();
    }
    std::vector<std::string> names(std::begin(kTimeframes), std::end(kTimeframes));
    return ValueError(node, key,
                      fmt::format("unknown timeframe '{}' (known: {})", tf, Join(names)));
  }

  const std::string& file_;
  Config& cfg_;
};

// lake_ss.export_after_publish and pdr-backend's export_db_data_to_parquet_files say the same
// thing: either one alone decides; both must agree.
Status ResolveExportAfterPublish(Config& cfg) {
  constexpr const char* kOurs = "lake_ss.export_after_publish";
  constexpr const char* kTheirs = "lake_ss.export_db_data_to_parquet_files";
  const bool ours_set = cfg.origins.count(kOurs) > 0;
  const bool theirs_set = cfg.origins.count(kTheirs) > 0;
  LakeConfig& lake = cfg.lake;
  if (ours_set && theirs_set && lake.export_after_publish != lake.export_db_data_to_parquet_files) {
    return Status::Config(fmt::format("{}: {}: {} contradicts {}: {} ({}); set one of them",
                                      cfg.origins[kTheirs].Describe(), kTheirs,
                                      lake.export_db_data_to_parquet_files, kOurs,
                                      lake.export_after_publish, cfg.origins[kOurs].Describe()));
  }
  if (theirs_set && !ours_set) {
    lake.export_after_publish = lake.export_db_data_to_parquet_files;
    cfg.origins[kOurs] = cfg.origins[kTheirs];
  } else {
    lake.export_db_data_to_parquet_files = lake.export_after_publish;
  }
  return Status::Ok();
}

}  // namespace

std::string Origin::Describe() const {
  switch (kind) {
    case Kind::kDefault:
      return "default";
    case Kind::kFile:
      return line > 0 ? fmt::format("{}:{}", file, line) : file;
    case Kind::kFlag:
      return "flag";
  }
  return "default";
}

bool IsKnownNetwork(const std::string& name) {
  return std::find(std::begin(kNetworks), std::end(kNetworks), name) != std::end(kNetworks);
}

bool IsUsableNetwork(const Config& cfg, const std::string& name) {
  return IsKnownNetwork(name) || cfg.web3.subgraph_urls.count(name) > 0;
}

std::string UnknownNetworkMessage(const std::string& name) {
  return fmt::format(
      "unknown network '{}' (known: {}; another network needs web3_pp.{}.subgraph_url)", name,
      KnownNetworks(), name);
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string w = Normalised(word);
  std::string best;
  size_t best_distance = 3;
  for (const std::string& c : candidates) {
    if (c == word) return "";
    size_t d = EditDistance(w, Normalised(c));
    // Short words are near everything: at most one edit for them.
    const size_t limit = std::min<size_t>(2, std::max<size_t>(1, c.size() / 4));
    if (d <= limit && d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

bool IsKnownExchange(const std::string& name) {
  return std::find(std::begin(kExchanges), std::end(kExchanges), name) != std::end(kExchanges);
}

std::string KnownExchanges() {
  std::string out = fmt::format("{}", fmt::join(kExchanges, ", "));
  return out;
}

std::string KnownNetworks() {
  std::string out = fmt::format("{}", fmt::join(kNetworks, ", "));
  return out;
}

Result<std::string> ExpandHome(const std::string& path, const std::string& home) {
  if (path != "~" && !StartsWith(path, "~/")) return path;
  if (home.empty()) {
    return Status::Config(fmt::format("cannot expand '~' in '{}': HOME is not set", path));
  }
  std::string base = home;
  // "~/x" under HOME "/" is "/x", not "//x".
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (path == "~") return base;
  return (base == "/" ? "" : base) + path.substr(1);
}

Origin OriginOf(const Config& cfg, const std::string& key) {
  auto it = cfg.origins.find(key);
  return it == cfg.origins.end() ? Origin{} : it->second;
}

const std::vector<KeyInfo>& Keys() {
  static const std::vector<KeyInfo> keys = [] {
    const Config defaults;
    std::vector<KeyInfo> out;
    for (const Row& row : kRows) {
      out.push_back({row.key, row.kind, TypeOf(row), FormatValue(row, defaults), row.doc});
    }
    return out;
  }();
  return keys;
}

std::vector<ConfigEntry> Entries(const Config& cfg) {
  std::vector<ConfigEntry> out;
  for (const Row& row : kRows) {
    if (row.kind == ValueKind::kIgnored) continue;
    if (row.kind != ValueKind::kUrl) {
      out.push_back({row.key, FormatValue(row, cfg), OriginOf(cfg, row.key)});
      continue;
    }
    // The accessors take a mutable Config; read only.
    Config& mutable_cfg = const_cast<Config&>(cfg);
    for (const auto& [network, url] :
         *std::get<std::map<std::string, std::string>* (*)(Config&)>(row.field)(mutable_cfg)) {
      std::string key = Dotted(row.key, network);
      out.push_back({key, url, OriginOf(cfg, key)});
    }
  }
  return out;
}

Result<Config> LoadConfig(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::Config(fmt::format("cannot read config {}: {}", path, std::strerror(EISDIR)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::Config(fmt::format("cannot read config {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    return Status::Config(fmt::format("cannot read config {}: {}", path, std::strerror(errno)));
  }

  Config cfg;
  cfg.path = path;
  try {
    YAML::Node root = YAML::Load(buf.str());
    Reader r(path, cfg);
    if (root.IsNull()) return cfg;
    if (!root.IsMap()) return r.Error(root.Mark(), "expected a mapping of sections (lake_ss: ...)");
    RETURN_IF_ERROR(r.Section(root, "", "", ""));
    RETURN_IF_ERROR(ResolveExportAfterPublish(cfg));
    if (!IsUsableNetwork(cfg, cfg.lake.network)) {
      Origin origin = OriginOf(cfg, "lake_ss.network");
      return Status::Config(fmt::format("{}: lake_ss.network: {}", origin.Describe(),
                                        UnknownNetworkMessage(cfg.lake.network)));
    }
    if (!IsKnownExchange(cfg.lake.ohlcv_exchange)) {
      Origin origin = OriginOf(cfg, "lake_ss.ohlcv_exchange");
      return Status::Config(
          fmt::format("{}: lake_ss.ohlcv_exchange: unknown exchange '{}' (known: {})",
                      origin.Describe(), cfg.lake.ohlcv_exchange, KnownExchanges()));
    }
    if (!StartsWith(cfg.lake.ohlcv_base_url, "http://") &&
        !StartsWith(cfg.lake.ohlcv_base_url, "https://")) {
      Origin origin = OriginOf(cfg, "lake_ss.ohlcv_base_url");
      return Status::Config(
          fmt::format("{}: lake_ss.ohlcv_base_url: '{}' is not an http:// or https:// URL",
                      origin.Describe(), cfg.lake.ohlcv_base_url));
    }
  } catch (const YAML::Exception& e) {
    int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    return Status::Config(fmt::format("{}:{}: malformed YAML: {}", path, line, e.msg));
  } catch (const std::exception& e) {
    return Status::Config(fmt::format("{}: {}", path, e.what()));
  }
  return cfg;
}

}  // namespace predlake::config
