// The configuration: the sections of pdr-backend's ppss.yaml that predlake reads (lake_ss, web3_pp,
// sim_ss). Every key predlake knows, and every pdr-backend key it accepts and ignores, is one row
// of the key table (Keys()); the reader, `config show` and docs/config.md follow that table. Other
// top-level sections are ignored; inside ours an unknown key or a bad value is a kConfig error
// whose message starts with "FILE:LINE: ".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace predlake::config {

// Where a resolved value came from, for `predlake config show`.
struct Origin {
  enum class Kind { kDefault, kFile, kFlag };
  Kind kind = Kind::kDefault;
  std::string file;              // set for kFile
  int line = 0;                  // 1-based, set for kFile
  std::string Describe() const;  // "default", "ppss.yaml:12", "flag"
};

// lake_ss
struct LakeConfig {
  // Relative paths are relative to the working directory; `~` and `~/...` are expanded at load.
  std::string lake_dir = "lake_data";
  std::string st_timestr = "30 days ago";
  std::string fin_timestr = "now";
  std::string network = "sim";  // the default network: sim, sapphire-mainnet, sapphire-testnet
  // Parquet snapshots under <lake_dir>/exports/ (docs/export.md).
  // Export after every successful writing run, so that `serve` shows what it published.
  bool export_after_publish = true;
  // pdr-backend's key for the same (LoadConfig resolves the two: either one alone decides, both
  // must agree); after LoadConfig it equals export_after_publish.
  bool export_db_data_to_parquet_files = true;
  int64_t export_grace_ms = 10 * 60'000;  // how long a superseded snapshot stays for its readers
  // How long one subgraph query may keep retrying lasting errors (throttling, timeouts, indexing
  // errors): the sum of its backoff waits.
  int64_t retry_budget_ms = 10 * 60 * 1000;
  // The price source of a feed whose data NFT names none (mainnet's tokens have `nft: null`).
  std::string feed_source = "binance";
  // Exchange candles (pdr_ohlcv, docs/ohlcv.md): fetched by `raw update` for every feed whose
  // source is ohlcv_exchange, and compared with the truevals by the ETL. False: no candles are
  // fetched and the candle columns stay NULL. Candles never hold the ETL back either way.
  bool ohlcv = true;
  std::string ohlcv_exchange = "binance";  // one of KnownExchanges()
  std::string ohlcv_base_url =
      "https://api.binance.com";  // real networks; `sim` answers in-process
  // A candle still missing this long after it closed (by the exchange's clock) is recorded as a
  // known gap and its stream's watermark moves past it; before, every run asks for it again.
  int64_t ohlcv_gap_after_ms = 86'400'000;
  // A long fetch or ETL window runs in chunks of this length, each committed on its own (a kill
  // loses at most one chunk); it bounds the memory of a first `update` over a long history.
  int64_t checkpoint_period_ms = 86'400'000;
  // DuckDB's memory limit for the writing commands (its buffer pool: cached blocks, indexes, the
  // hash tables of the ETL's joins); past it DuckDB evicts and spills to
  // <lake_dir>/lake.duckdb.tmp/. Without it DuckDB takes 80% of the RAM and keeps the growing lake
  // cached (docs/scale.md).
  std::string memory_limit = "1GB";
};

// Fault injection rates for the simulated network's transports (each a probability in [0, 1]).
struct SimFaults {
  double http_5xx = 0;
  double timeout = 0;  // the answer is delayed past the client's timeout
  double http_429 = 0;
  double graphql_error = 0;
  double malformed = 0;  // truncated or malformed JSON body
  // A share of requests answered by a replica whose indexed head is replica_lag_ms behind.
  double lagging_replica = 0;
  int64_t replica_lag_ms = 10 * 60 * 1000;
  double null_head_timestamp = 0;  // `_meta.block.timestamp` null (graph-node does it now and then)
  // Bursts of throttle_burst_length consecutive requests answered with graph-node's throttling
  // and load errors; throttle_burst is the share of bursts among request groups of that length.
  double throttle_burst = 0;
  int throttle_burst_length = 6;
  uint64_t seed = 1;
};

// sim_ss: the simulated network (docs/design.md section 7).
struct SimConfig {
  uint64_t seed = 42;
  std::string now =
      "2024-07-26_02:00";            // a time string; pins the simulated "now" ("now" = wall clock)
  int64_t indexing_lag_ms = 30'000;  // how far the indexed head trails "now"
  std::string start = "2024-07-12";  // when the simulated world starts (no events before it)
  int num_predictoors = 40;
  std::vector<std::string> pairs = {"BTC/USDT",  "ETH/USDT", "BNB/USDT", "XRP/USDT", "ADA/USDT",
                                    "DOGE/USDT", "SOL/USDT", "LTC/USDT", "TRX/USDT", "DOT/USDT"};
  std::vector<std::string> timeframes = {"5m", "1h"};
  std::string source = "binance";
  // Share of the feeds whose token has `nft: null` (no NFT data), as on mainnet; their metadata
  // must come from the fallback (token.name, secondsPerEpoch, lake_ss.feed_source).
  double nftless_feeds = 0;
  // Share of the feeds whose settings event is indexed 1-4 hours after the world starts: until
  // then their contract reads secondsPerEpoch 0 (not a usable feed) and has no events.
  double unsettled_feeds = 0;
  // Share of the predictions re-submitted with a new stake later within the epoch (the subgraph
  // overwrites the entity: timestamp, stake, block, txId).
  double resubmitted_predictions = 0;
  // A response that grows past this many MB is abandoned with a GraphQL error (graph-node bounds
  // its results too), so that one query cannot grow the server by hundreds of MB.
  int max_response_mb = 32;
  // Share of the slots whose on-chain trueval is made wrong on purpose: the simulated exchange's
  // candles move the other way (for `validate`'s trueval_vs_exchange check).
  double wrong_truevals = 0;
  SimFaults faults;
};

// web3_pp.<network>.subgraph_url
// Defaults to the public ocean-subgraph URLs of the two Sapphire networks.
struct Web3Config {
  std::map<std::string, std::string> subgraph_urls = {
      {"sapphire-mainnet",
       "https://v4.subgraph.sapphire-mainnet.oceanprotocol.com/subgraphs/name/oceanprotocol/"
       "ocean-subgraph"},
      {"sapphire-testnet",
       "https://v4.subgraph.sapphire-testnet.oceanprotocol.com/subgraphs/name/oceanprotocol/"
       "ocean-subgraph"},
  };  // network name -> URL
};

// predictoor_ss: of pdr-backend's keys only my_addresses (the dashboard's own addresses).
struct PredictoorConfig {
  std::vector<std::string> my_addresses;  // lower case
};

struct Config {
  std::string path;  // the file it was read from ("" when no file was read)
  LakeConfig lake;
  PredictoorConfig predictoor;
  SimConfig sim;
  Web3Config web3;
  std::map<std::string, Origin> origins;  // dotted key ("lake_ss.lake_dir") -> origin
  // "FILE:LINE: 'lake-ss' is ignored; did you mean 'lake_ss'?" for every ignored section or key
  // that is a near miss (edit distance up to 2, '-' read as '_') of one predlake reads; the CLI
  // prints them as warnings.
  std::vector<std::string> warnings;
};

// How a key's value is written in the file, checked and stored.
enum class ValueKind {
  kString,    // a non-empty string
  kPath,      // a non-empty path; a leading `~` or `~/` is replaced by $HOME once, at load
  kTime,      // a time string: syntax checked at load, resolved later against the command's now
  kNetwork,   // one of KnownNetworks(), or a name with web3_pp.<name>.subgraph_url
  kUrl,       // an http:// or https:// URL
  kDuration,  // 500ms, 30s, 5m, 2h, 1d
  kMemory,    // a memory size: 512MB, 1GB, 1.5GB (KB, MB, GB, TB; KiB, MiB, GiB, TiB), at least min
              // MB
  kInteger,   // an integer in the key's [min, max]
  kSeed,      // an unsigned 64-bit integer
  kProbability,  // a number in [0, 1]
  kBoolean,      // true or false
  kPairs,        // a list (YAML list, or one string split at spaces and commas) of BASE/QUOTE
  kTimeframes,   // a list of timeframes (5m, 1h)
  kAddresses,    // a list (possibly empty) of 0x addresses, stored in lower case
  kIgnored,      // a pdr-backend key: accepted with any value and ignored
};

// One row of the key table.
struct KeyInfo {
  // Dotted, as nested in the file: "lake_ss.lake_dir". "<network>" stands for any network name
  // (web3_pp.<network>.subgraph_url); a last segment "*" (kIgnored only) for every other key of
  // its section.
  std::string key;
  ValueKind kind = ValueKind::kIgnored;
  std::string type;           // the kind for people: "time", "integer in [1, 100000]", ...
  std::string default_value;  // as `config show` prints it; "" for kIgnored
  std::string doc;            // one line (Markdown), as docs/config.md gives it
};

// Every key, in the order `config show` and docs/config.md list them: lake_ss, web3_pp, sim_ss,
// each section's own keys first and then the pdr-backend keys it ignores. The first segments are
// the sections predlake reads; any other top-level section is ignored. Built once; thread-safe.
const std::vector<KeyInfo>& Keys();

// The closest of `candidates` to `word` when it is a near miss (edit distance 1 or 2 after
// lowercasing and reading '-' as '_', and not equal), else "". The one did-you-mean of the CLI.
std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates);

// Reads `path`. A missing or unreadable file, malformed YAML, an unknown key inside lake_ss /
// sim_ss / web3_pp.<network>, or a value of the wrong type or range gives a kConfig status with
// "path:line: ..." (an unknown key's message lists the section's known keys). Time strings are
// checked for syntax here (with ParseTime) but resolved later, against the command's now. The
// kIgnored keys of Keys() are accepted and ignored. A kPath value `~` or starting with `~/` gets
// $HOME in place of the `~` (kConfig when HOME is unset or empty); `~user` and a `~` anywhere
// else are kept as written.
Result<Config> LoadConfig(const std::string& path);

// The networks predlake knows: sim, sapphire-mainnet, sapphire-testnet.
bool IsKnownNetwork(const std::string& name);
// A network a command can work on: a known one, or any other name (development, barge-*, ...)
// whose web3_pp.<name>.subgraph_url is set (a local subgraph).
bool IsUsableNetwork(const Config& cfg, const std::string& name);
// "unknown network 'NAME' (known: ...; another network needs web3_pp.NAME.subgraph_url)".
std::string UnknownNetworkMessage(const std::string& name);
// "sim, sapphire-mainnet, sapphire-testnet", for error messages.
std::string KnownNetworks();

// The exchanges whose candles predlake fetches (lake_ss.ohlcv_exchange): binance.
bool IsKnownExchange(const std::string& name);
// "binance", for error messages.
std::string KnownExchanges();

// The origin recorded for a dotted key, or a kDefault origin when the file did not set it.
Origin OriginOf(const Config& cfg, const std::string& key);

// `path` with a leading `~` or `~/` replaced by `home` (other paths unchanged); kConfig when the
// path needs it and `home` is empty.
Result<std::string> ExpandHome(const std::string& path, const std::string& home);

// One resolved value, as `predlake config show` lists it.
struct ConfigEntry {
  std::string key;    // dotted: "lake_ss.lake_dir", "web3_pp.sapphire-mainnet.subgraph_url"
  std::string value;  // as text; lists are joined with ", "
  Origin origin;
};

// Every value predlake uses, with its origin, in the order of Keys() (a <network> key once per
// network that has a value).
std::vector<ConfigEntry> Entries(const Config& cfg);

}  // namespace predlake::config
