// The configuration: the sections of pdr-backend's ppss.yaml that predlake reads (lake_ss, web3_pp,
// sim_ss). Other top-level sections are ignored; inside ours an unknown key or a bad value is a
// kConfig error whose message starts with "FILE:LINE: ".
#pragma once

#include <cstdint>
#include <map>
#include <string>
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
  std::string lake_dir = "lake_data";  // relative paths are relative to the working directory
  std::string st_timestr = "30 days ago";
  std::string fin_timestr = "now";
  std::string network = "sim";  // the default network: sim, sapphire-mainnet, sapphire-testnet
};

// Fault injection rates for the simulated network's transports (each a probability in [0, 1]).
struct SimFaults {
  double http_5xx = 0;
  double timeout = 0;  // the answer is delayed past the client's timeout
  double http_429 = 0;
  double graphql_error = 0;
  double malformed = 0;  // truncated or malformed JSON body
  uint64_t seed = 1;
};

// sim_ss: the simulated network (DESIGN.md section 7).
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

struct Config {
  std::string path;  // the file it was read from ("" when no file was read)
  LakeConfig lake;
  SimConfig sim;
  Web3Config web3;
  std::map<std::string, Origin> origins;  // dotted key ("lake_ss.lake_dir") -> origin
};

// Reads `path`. A missing or unreadable file, malformed YAML, an unknown key inside lake_ss /
// sim_ss / web3_pp.<network>, or a value of the wrong type or range gives a kConfig status with
// "path:line: ...". Time strings are checked for syntax here (with ParseTime) but resolved later,
// against the command's now. pdr-backend's own keys in lake_ss and sim_ss, and everything in
// web3_pp except <network>.subgraph_url, are accepted and ignored.
Result<Config> LoadConfig(const std::string& path);

// The networks predlake knows: sim, sapphire-mainnet, sapphire-testnet.
bool IsKnownNetwork(const std::string& name);
// "sim, sapphire-mainnet, sapphire-testnet", for error messages.
std::string KnownNetworks();

// The origin recorded for a dotted key, or a kDefault origin when the file did not set it.
Origin OriginOf(const Config& cfg, const std::string& key);

// One resolved value, as `predlake config show` lists it.
struct ConfigEntry {
  std::string key;    // dotted: "lake_ss.lake_dir", "web3_pp.sapphire-mainnet.subgraph_url"
  std::string value;  // as text; lists are joined with ", "
  Origin origin;
};

// Every value predlake uses, in a stable order, with its origin.
std::vector<ConfigEntry> Entries(const Config& cfg);

}  // namespace predlake::config
