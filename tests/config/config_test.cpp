#include "config/config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.hpp"

namespace predlake::config {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Data(const std::string& name) {
  return test_support::SourceDir() + "/tests/config/data/" + name;
}

Status LoadError(const std::string& name) {
  Result<Config> r = LoadConfig(Data(name));
  EXPECT_FALSE(r.ok()) << name;
  EXPECT_EQ(r.status().code(), StatusCode::kConfig) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << "one line";
  return r.status();
}

TEST(LoadConfigTest, MissingFile) {
  Result<Config> r = LoadConfig("/nonexistent/dir/ppss.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kConfig);
  EXPECT_EQ(r.status().message(),
            "cannot read config /nonexistent/dir/ppss.yaml: No such file or directory");
}

TEST(LoadConfigTest, DirectoryIsNotAFile) {
  Result<Config> r = LoadConfig(test_support::SourceDir() + "/tests/config/data");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("Is a directory"));
}

TEST(LoadConfigTest, MalformedYamlHasFileAndLine) {
  Status st = LoadError("malformed.yaml");
  EXPECT_THAT(st.message(), StartsWith(Data("malformed.yaml") + ":"));
  EXPECT_THAT(st.message(), HasSubstr("malformed YAML"));
  // The line is the one yaml-cpp's mark points at (1-based), never 0.
  EXPECT_THAT(st.message(), ::testing::Not(HasSubstr(".yaml:0:")));
}

TEST(LoadConfigTest, UnknownKeyNamesLineAndKnownKeys) {
  Status st = LoadError("unknown_key.yaml");
  EXPECT_EQ(st.message(),
            Data("unknown_key.yaml") +
                ":5: unknown key 'lake_dirr' in lake_ss (did you mean 'lake_dir'? known: lake_dir, "
                "st_timestr, fin_timestr, network, export_after_publish, "
                "export_db_data_to_parquet_files, export_grace, retry_budget, feed_source, ohlcv, "
                "ohlcv_exchange, ohlcv_base_url, ohlcv_gap_after, "
                "checkpoint_period, "
                "memory_limit)");
}

TEST(LoadConfigTest, UnknownNestedKey) {
  Status st = LoadError("unknown_sim_key.yaml");
  EXPECT_THAT(st.message(),
              StartsWith(Data("unknown_sim_key.yaml") + ":5: unknown key 'http_500' in "
                                                        "sim_ss.faults"));
}

TEST(LoadConfigTest, WrongType) {
  Status st = LoadError("wrong_type.yaml");
  EXPECT_EQ(st.message(),
            Data("wrong_type.yaml") + ":3: sim_ss.predictoors: expected an integer, got 'many'");
  EXPECT_THAT(LoadError("lake_dir_map.yaml").message(),
              HasSubstr(":3: lake_ss.lake_dir: expected a non-empty string"));
}

TEST(LoadConfigTest, OutOfRange) {
  EXPECT_THAT(LoadError("out_of_range.yaml").message(),
              HasSubstr(":3: sim_ss.faults.timeout: 1.5 is out of range [0, 1]"));
  EXPECT_THAT(LoadError("bad_list.yaml").message(),
              HasSubstr(":2: sim_ss.timeframes: unknown timeframe '15m'"));
  EXPECT_THAT(LoadError("bad_pair.yaml").message(),
              HasSubstr(":2: sim_ss.pairs: 'BTCUSDT' is not a pair"));
  EXPECT_THAT(LoadError("bad_url.yaml").message(),
              HasSubstr(":3: web3_pp.sapphire-mainnet.subgraph_url: 'ftp://example.test' is not"));
}

TEST(LoadConfigTest, BadTimeString) {
  Status st = LoadError("bad_time.yaml");
  EXPECT_THAT(st.message(), StartsWith(Data("bad_time.yaml") + ":3: lake_ss.st_timestr: "));
  EXPECT_THAT(st.message(), HasSubstr("day 30"));
}

TEST(LoadConfigTest, BadDuration) {
  Status st = LoadError("bad_duration.yaml");
  EXPECT_THAT(st.message(), StartsWith(Data("bad_duration.yaml") + ":2: sim_ss.indexing_lag: "));
  EXPECT_THAT(st.message(), HasSubstr("'30 seconds'"));
}

TEST(LoadConfigTest, BadNetwork) {
  Status st = LoadError("bad_network.yaml");
  EXPECT_EQ(st.message(), Data("bad_network.yaml") +
                              ":2: lake_ss.network: unknown network 'polygon' (known: sim, "
                              "sapphire-mainnet, sapphire-testnet; another network needs "
                              "web3_pp.polygon.subgraph_url)");
}

TEST(LoadConfigTest, DuplicateKeyAndNonMapping) {
  EXPECT_THAT(LoadError("duplicate_key.yaml").message(),
              HasSubstr(":3: duplicate key 'lake_dir' in lake_ss"));
  EXPECT_THAT(LoadError("not_a_map.yaml").message(), HasSubstr(":1: expected a mapping"));
}

TEST(LoadConfigTest, EmptyFileGivesDefaults) {
  Result<Config> r = LoadConfig(Data("empty.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->lake.lake_dir, "lake_data");
  EXPECT_EQ(r->lake.network, "sim");
  EXPECT_TRUE(r->origins.empty());
}

TEST(LoadConfigTest, PdrBackendFileWithOtherSectionsAndKeys) {
  Result<Config> r = LoadConfig(Data("pdr_backend.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Config& c = *r;
  EXPECT_EQ(c.path, Data("pdr_backend.yaml"));
  EXPECT_EQ(c.lake.lake_dir, "my_lake");
  EXPECT_EQ(c.lake.st_timestr, "2024-07-01_00:00");
  EXPECT_EQ(c.lake.fin_timestr, "now");
  EXPECT_EQ(c.lake.network, "sim");  // default: pdr-backend has no lake_ss.network
  EXPECT_EQ(c.web3.subgraph_urls.at("sapphire-testnet"), "https://example.test/testnet");
  EXPECT_EQ(c.web3.subgraph_urls.at("development"),
            "http://localhost:9000/subgraphs/name/oceanprotocol/ocean-subgraph");
  EXPECT_THAT(c.web3.subgraph_urls.at("sapphire-mainnet"), HasSubstr("sapphire-mainnet"));

  Origin lake_dir = OriginOf(c, "lake_ss.lake_dir");
  EXPECT_EQ(lake_dir.kind, Origin::Kind::kFile);
  EXPECT_EQ(lake_dir.line, 3);
  EXPECT_EQ(lake_dir.Describe(), Data("pdr_backend.yaml") + ":3");
  EXPECT_EQ(OriginOf(c, "web3_pp.sapphire-testnet.subgraph_url").line, 24);
  EXPECT_EQ(OriginOf(c, "lake_ss.network").kind, Origin::Kind::kDefault);
  EXPECT_EQ(OriginOf(c, "lake_ss.network").Describe(), "default");
}

TEST(LoadConfigTest, EverySimKey) {
  Result<Config> r = LoadConfig(Data("full_sim.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SimConfig& s = r->sim;
  EXPECT_EQ(r->lake.network, "sapphire-testnet");
  EXPECT_EQ(s.seed, 18446744073709551615ull);
  EXPECT_EQ(s.now, "2024-08-01T00:00:00Z");
  EXPECT_EQ(s.indexing_lag_ms, 500);
  EXPECT_EQ(s.start, "2024-07-20");
  EXPECT_EQ(s.num_predictoors, 5);
  EXPECT_EQ(s.pairs, (std::vector<std::string>{"BTC/USDT", "ETH/USDT"}));
  EXPECT_EQ(s.timeframes, (std::vector<std::string>{"5m"}));
  EXPECT_EQ(s.source, "kraken");
  EXPECT_DOUBLE_EQ(s.faults.http_5xx, 0.25);
  EXPECT_DOUBLE_EQ(s.faults.timeout, 0);
  EXPECT_DOUBLE_EQ(s.faults.http_429, 1);
  EXPECT_DOUBLE_EQ(s.faults.graphql_error, 0.5);
  EXPECT_DOUBLE_EQ(s.faults.malformed, 0.125);
  EXPECT_EQ(s.faults.seed, 9u);
  EXPECT_EQ(OriginOf(*r, "sim_ss.faults.seed").line, 19);
}

TEST(LoadConfigTest, RepoPpssYamlLoads) {
  std::string path = test_support::SourceDir() + "/ppss.yaml";
  Result<Config> r = LoadConfig(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->lake.lake_dir, "lake_data");
  EXPECT_EQ(r->lake.st_timestr, "7 days ago");
  EXPECT_EQ(r->lake.fin_timestr, "now");
  EXPECT_EQ(r->lake.network, "sim");
  EXPECT_EQ(r->web3.subgraph_urls.at("sapphire-mainnet"),
            "https://v4.subgraph.sapphire-mainnet.oceanprotocol.com/subgraphs/name/oceanprotocol/"
            "ocean-subgraph");
  EXPECT_EQ(r->web3.subgraph_urls.at("sapphire-testnet"),
            "https://v4.subgraph.sapphire-testnet.oceanprotocol.com/subgraphs/name/oceanprotocol/"
            "ocean-subgraph");
  EXPECT_EQ(r->sim.timeframes, (std::vector<std::string>{"5m", "1h"}));
  EXPECT_EQ(r->sim.pairs.size(), 10u);
}

TEST(EntriesTest, ListsEveryValueWithOrigin) {
  Result<Config> r = LoadConfig(Data("full_sim.yaml"));
  ASSERT_TRUE(r.ok());
  std::vector<ConfigEntry> entries = Entries(*r);
  auto find = [&](const std::string& key) -> const ConfigEntry* {
    for (const ConfigEntry& e : entries) {
      if (e.key == key) return &e;
    }
    return nullptr;
  };
  ASSERT_NE(find("sim_ss.indexing_lag"), nullptr);
  EXPECT_EQ(find("sim_ss.indexing_lag")->value, "500ms");
  EXPECT_EQ(find("sim_ss.indexing_lag")->origin.line, 6);
  EXPECT_EQ(find("sim_ss.pairs")->value, "BTC/USDT, ETH/USDT");
  EXPECT_EQ(find("lake_ss.lake_dir")->origin.kind, Origin::Kind::kDefault);
  EXPECT_NE(find("web3_pp.sapphire-mainnet.subgraph_url"), nullptr);
}

// One row of a key table in docs/config.md: | `key` | type | `default` | meaning |
struct DocRow {
  std::string key, type, default_value, doc;
  bool operator==(const DocRow&) const = default;
};

std::ostream& operator<<(std::ostream& out, const DocRow& r) {
  return out << "| `" << r.key << "` | " << r.type << " | `" << r.default_value << "` | " << r.doc
             << " |";
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

// A cell that is one code span, without its backticks.
std::string Unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') return s.substr(1, s.size() - 2);
  return s;
}

std::vector<DocRow> DocumentedKeys() {
  std::ifstream in(test_support::SourceDir() + "/docs/config.md");
  EXPECT_TRUE(in) << "cannot read docs/config.md";
  std::vector<DocRow> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream cells_in(line.substr(1));
    for (std::string cell; std::getline(cells_in, cell, '|');) cells.push_back(Trim(cell));
    EXPECT_EQ(cells.size(), 4u) << line;
    cells.resize(4);
    rows.push_back({Unquote(cells[0]), cells[1], Unquote(cells[2]), cells[3]});
  }
  return rows;
}

TEST(KeysTest, DocsListExactlyTheKeyTable) {
  std::vector<DocRow> table;
  for (const KeyInfo& k : Keys()) table.push_back({k.key, k.type, k.default_value, k.doc});
  std::vector<DocRow> documented = DocumentedKeys();
  for (size_t i = 0; i < std::max(documented.size(), table.size()); ++i) {
    DocRow doc = i < documented.size() ? documented[i] : DocRow{};
    DocRow key = i < table.size() ? table[i] : DocRow{};
    EXPECT_EQ(doc, key) << "row " << i << " of docs/config.md's key tables and of Keys() differ";
  }
}

// A nested YAML mapping built from dotted keys.
struct YamlTree {
  std::map<std::string, YamlTree> children;
  std::string value;  // a leaf's YAML text
  void Set(const std::vector<std::string>& path, size_t at, const std::string& text) {
    if (at == path.size()) {
      value = text;
      return;
    }
    children[path[at]].Set(path, at + 1, text);
  }
  void Write(std::ostream& out, int indent) const {
    for (const auto& [key, child] : children) {
      out << std::string(indent, ' ') << key << ":";
      if (child.children.empty()) {
        out << " " << child.value << "\n";
      } else {
        out << "\n";
        child.Write(out, indent + 2);
      }
    }
  }
};

TEST(KeysTest, EveryValueKeyIsShownAndEveryIgnoredKeyIsAccepted) {
  std::vector<ConfigEntry> entries = Entries(Config{});
  YamlTree root;
  int ignored = 0;
  for (const KeyInfo& k : Keys()) {
    std::vector<std::string> path;
    std::istringstream words(k.key);
    for (std::string w; std::getline(words, w, '.');) {
      path.push_back(w == "*" ? "anything" : w == "<network>" ? "some-network" : w);
    }
    if (k.kind == ValueKind::kIgnored) {
      // pdr-backend's keys load whatever their value (a scalar for web3_pp's own entries: a
      // mapping there is a network's section).
      root.Set(path, 0, k.key == "web3_pp.*" ? "x" : "{a: [1, {b: 2}]}");
      ++ignored;
      continue;
    }
    bool shown = false;
    for (const ConfigEntry& e : entries) {
      shown = shown || e.key == k.key ||
              (k.kind == ValueKind::kUrl && e.key == "web3_pp.sapphire-mainnet.subgraph_url");
    }
    EXPECT_TRUE(shown) << k.key << " is not in config show";
  }
  EXPECT_GT(ignored, 10);
  std::ostringstream yaml;
  root.Write(yaml, 0);
  const std::string path = ::testing::TempDir() + "/predlake_ignored_keys.yaml";
  std::ofstream(path) << yaml.str();
  Result<Config> r = LoadConfig(path);
  std::remove(path.c_str());
  ASSERT_TRUE(r.ok()) << r.status().message() << "\n" << yaml.str();
  EXPECT_TRUE(r->origins.empty()) << yaml.str();
  EXPECT_THAT(yaml.str(), HasSubstr("  feeds: {a: [1, {b: 2}]}\n"));
}

TEST(KeysTest, UnknownKeyMessagesListTheTablesKeys) {
  EXPECT_THAT(LoadError("unknown_sim_key.yaml").message(),
              HasSubstr("(did you mean 'http_5xx'? known: http_5xx, timeout, http_429, "
                        "graphql_error, malformed, lagging_replica, replica_lag, "
                        "null_head_timestamp, throttle_burst, throttle_burst_length, seed)"));
}

TEST(KeysTest, DidYouMeanFindsNearMissesOnly) {
  const std::vector<std::string> ours = {"lake_ss", "web3_pp", "sim_ss"};
  EXPECT_EQ(DidYouMean("lake-ss", ours), "lake_ss");
  EXPECT_EQ(DidYouMean("Lake_SS", ours), "lake_ss");
  EXPECT_EQ(DidYouMean("web3pp", ours), "web3_pp");
  EXPECT_EQ(DidYouMean("lake_ss", ours), "");
  EXPECT_EQ(DidYouMean("trader_ss", ours), "");
  EXPECT_EQ(DidYouMean("predictoor_ss", ours), "");
  EXPECT_EQ(DidYouMean("subgraph_ur", {"subgraph_url"}), "subgraph_url");
  EXPECT_EQ(DidYouMean("rpc_url", {"subgraph_url"}), "");
}

TEST(LoadConfigTest, NearMissesWarnAndOtherNetworksNeedAUrl) {
  const std::string path = ::testing::TempDir() + "/predlake_near_misses.yaml";
  std::ofstream(path) << "lake_ss:\n  network: barge-predictoor-bot\nlake-ss:\n  x: 1\n"
                         "sim_ss:\n  do_plot: True\nweb3_pp:\n  barge-predictoor-bot:\n"
                         "    subgraph_url: http://localhost:9000/x\n  development:\n"
                         "    subgraph_ur: http://localhost:9000/x\n";
  Result<Config> r = LoadConfig(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->lake.network, "barge-predictoor-bot");
  EXPECT_TRUE(IsUsableNetwork(*r, "barge-predictoor-bot"));
  EXPECT_FALSE(IsUsableNetwork(*r, "development"));
  ASSERT_EQ(r->warnings.size(), 2u);
  EXPECT_EQ(r->warnings[0], path + ":3: 'lake-ss' is ignored; did you mean 'lake_ss'?");
  EXPECT_EQ(
      r->warnings[1],
      path + ":11: 'web3_pp.development.subgraph_ur' is ignored; did you mean 'subgraph_url'?");
  std::remove(path.c_str());
}

TEST(LoadConfigTest, MemoryLimit) {
  EXPECT_EQ(Config{}.lake.memory_limit, "1GB");
  const std::string path = ::testing::TempDir() + "/predlake_memory_limit.yaml";
  for (const char* good : {"512MB", "1.5GB", "2 GiB", "128mb", "1TB"}) {
    std::ofstream(path) << "lake_ss:\n  memory_limit: " << good << "\n";
    Result<Config> r = LoadConfig(path);
    ASSERT_TRUE(r.ok()) << good << ": " << r.status().message();
    EXPECT_EQ(r->lake.memory_limit, good);
  }
  const std::pair<const char*, const char*> bad[] = {
      {"12XB", "'12XB' is not a memory size (e.g. 512MB, 1GB, 1.5GiB)"},
      {"1.GB", "'1.GB' is not a memory size (e.g. 512MB, 1GB, 1.5GiB)"},
      {"GB", "'GB' is not a memory size (e.g. 512MB, 1GB, 1.5GiB)"},
      {"1024", "'1024' is not a memory size (e.g. 512MB, 1GB, 1.5GiB)"},
      {"100MB", "'100MB' is less than 128MB"}};
  for (const auto& [value, message] : bad) {
    std::ofstream(path) << "lake_ss:\n  lake_dir: x\n  memory_limit: " << value << "\n";
    Result<Config> r = LoadConfig(path);
    ASSERT_FALSE(r.ok()) << value;
    EXPECT_EQ(r.status().code(), StatusCode::kConfig);
    EXPECT_EQ(r.status().message(), path + ":3: lake_ss.memory_limit: " + message);
  }
  std::remove(path.c_str());
}

// Every publish is exported by default; pdr-backend's key for it is honoured, alone or agreeing.
TEST(LoadConfigTest, ExportAfterPublishAndPdrBackendsKey) {
  EXPECT_TRUE(Config{}.lake.export_after_publish);
  const std::string path = ::testing::TempDir() + "/predlake_export_keys.yaml";
  struct Case {
    const char* lines;
    bool expected;
    int origin_line;  // of lake_ss.export_after_publish; 0: the default
  };
  const Case cases[] = {
      {"", true, 0},
      {"  export_after_publish: false\n", false, 3},
      {"  export_db_data_to_parquet_files: False\n", false, 3},
      {"  export_db_data_to_parquet_files: True\n", true, 3},
      {"  export_after_publish: false\n  export_db_data_to_parquet_files: FALSE\n", false, 3},
      {"  export_db_data_to_parquet_files: true\n  export_after_publish: true\n", true, 4},
  };
  for (const Case& c : cases) {
    std::ofstream(path) << "lake_ss:\n  lake_dir: x\n" << c.lines;
    Result<Config> r = LoadConfig(path);
    ASSERT_TRUE(r.ok()) << c.lines << r.status().message();
    EXPECT_EQ(r->lake.export_after_publish, c.expected) << c.lines;
    EXPECT_EQ(r->lake.export_db_data_to_parquet_files, c.expected) << c.lines;
    EXPECT_EQ(OriginOf(*r, "lake_ss.export_after_publish").line, c.origin_line) << c.lines;
  }
  std::ofstream(path) << "lake_ss:\n  export_after_publish: false\n  lake_dir: x\n"
                         "  export_db_data_to_parquet_files: True\n";
  Result<Config> r = LoadConfig(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kConfig);
  EXPECT_EQ(r.status().message(),
            path +
                ":4: lake_ss.export_db_data_to_parquet_files: true contradicts "
                "lake_ss.export_after_publish: false (" +
                path + ":2); set one of them");
  std::ofstream(path) << "lake_ss:\n  export_db_data_to_parquet_files: yes\n";
  r = LoadConfig(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      path + ":2: lake_ss.export_db_data_to_parquet_files: expected true or false, got 'yes'");
  std::remove(path.c_str());
}

TEST(NetworkTest, Known) {
  EXPECT_TRUE(IsKnownNetwork("sim"));
  EXPECT_TRUE(IsKnownNetwork("sapphire-mainnet"));
  EXPECT_TRUE(IsKnownNetwork("sapphire-testnet"));
  EXPECT_FALSE(IsKnownNetwork("development"));
  EXPECT_FALSE(IsKnownNetwork(""));
  EXPECT_FALSE(IsKnownNetwork("SIM"));
}

}  // namespace
}  // namespace predlake::config

namespace predlake::config {
namespace {

TEST(ExpandHomeTest, OnlyALeadingTildeOrTildeSlash) {
  EXPECT_EQ(*ExpandHome("~", "/home/u"), "/home/u");
  EXPECT_EQ(*ExpandHome("~/lake", "/home/u"), "/home/u/lake");
  EXPECT_EQ(*ExpandHome("~/lake", "/home/u/"), "/home/u/lake");
  EXPECT_EQ(*ExpandHome("~/lake", "/"), "/lake");
  EXPECT_EQ(*ExpandHome("~user/lake", "/home/u"), "~user/lake");
  EXPECT_EQ(*ExpandHome("lake/~", "/home/u"), "lake/~");
  EXPECT_EQ(*ExpandHome("./~/lake", "/home/u"), "./~/lake");
  EXPECT_EQ(*ExpandHome("lake", ""), "lake");
  Result<std::string> no_home = ExpandHome("~/lake", "");
  ASSERT_FALSE(no_home.ok());
  EXPECT_EQ(no_home.status().code(), StatusCode::kConfig);
}

}  // namespace
}  // namespace predlake::config
