#include "config/config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "common/time.hpp"

namespace predlake::config {
namespace {

// Time strings in the file are only checked for syntax at load time; relative ones ("30 days ago")
// are resolved later against the command's frozen now. A far-future now keeps them from
// underflowing here.
constexpr int64_t kSyntaxCheckNowMs = 4'102'444'800'000;  // 2100-01-01

constexpr const char* kNetworks[] = {"sim", "sapphire-mainnet", "sapphire-testnet"};

// pdr-backend's own keys in the sections predlake shares with it; accepted and ignored so that a
// user's existing ppss.yaml works unchanged.
const std::set<std::string> kPdrBackendLakeKeys = {
    "feeds",
    "timeframe",
    "api",
    "parquet_dir",
    "export_db_data_to_parquet_files",
    "seconds_between_parquet_exports",
    "number_of_files_after_which_re_export_db",
};
const std::set<std::string> kPdrBackendSimKeys = {"log_dir", "test_n", "tradetype",
                                                  "use_own_model"};

// Reads one section, with the file name for messages and the origins map to fill.
class SectionReader {
 public:
  SectionReader(const std::string& file, Config& cfg) : file_(file), cfg_(cfg) {}

  Status Error(const YAML::Mark& mark, const std::string& msg) const {
    int line = mark.is_null() ? 1 : mark.line + 1;
    return Status::Config(fmt::format("{}:{}: {}", file_, line, msg));
  }
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

  Status String(const YAML::Node& node, const std::string& key, std::string& out) {
    if (!node.IsScalar() || node.Scalar().empty()) {
      return ValueError(node, key, "expected a non-empty string");
    }
    out = node.Scalar();
    Record(key, node);
    return Status::Ok();
  }

  Status TimeString(const YAML::Node& node, const std::string& key, std::string& out) {
    RETURN_IF_ERROR(String(node, key, out));
    Result<int64_t> t = ParseTime(out, kSyntaxCheckNowMs);
    if (!t.ok()) return ValueError(node, key, t.status().message());
    return Status::Ok();
  }

  template <typename Int>
  Status Integer(const YAML::Node& node, const std::string& key, Int lo, Int hi, Int& out) {
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
    Record(key, node);
    return Status::Ok();
  }

  Status Probability(const YAML::Node& node, const std::string& key, double& out) {
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
    Record(key, node);
    return Status::Ok();
  }

  // A YAML list of strings, or one scalar holding them separated by spaces or commas.
  Status StringList(const YAML::Node& node, const std::string& key, std::vector<std::string>& out) {
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
    Record(key, node);
    return Status::Ok();
  }

  // Checks that `section` is a mapping without duplicate keys and calls `fn(key_node, value_node)`.
  template <typename Fn>
  Status ForEachKey(const YAML::Node& section, const std::string& name, Fn fn) {
    if (section.IsNull()) return Status::Ok();
    if (!section.IsMap()) return Error(section.Mark(), name + ": expected a mapping");
    std::set<std::string> seen;
    for (auto it = section.begin(); it != section.end(); ++it) {
      // Copies: yaml-cpp's iterator hands out a temporary pair, so references into it dangle.
      const YAML::Node k = it->first;
      const YAML::Node v = it->second;
      if (!k.IsScalar()) return Error(k.Mark(), name + ": keys must be plain strings");
      if (!seen.insert(k.Scalar()).second) {
        return Error(k.Mark(), fmt::format("duplicate key '{}' in {}", k.Scalar(), name));
      }
      RETURN_IF_ERROR(fn(k, v));
    }
    return Status::Ok();
  }

  Status Unknown(const YAML::Node& key, const std::string& section, const char* known) const {
    return Error(key.Mark(),
                 fmt::format("unknown key '{}' in {} (known: {})", key.Scalar(), section, known));
  }

  Config& cfg() { return cfg_; }

 private:
  const std::string& file_;
  Config& cfg_;
};

Status ReadLake(SectionReader& r, const YAML::Node& section) {
  LakeConfig& lake = r.cfg().lake;
  return r.ForEachKey(section, "lake_ss", [&](const YAML::Node& k, const YAML::Node& v) -> Status {
    const std::string& key = k.Scalar();
    if (key == "lake_dir") return r.String(v, "lake_ss.lake_dir", lake.lake_dir);
    if (key == "st_timestr") return r.TimeString(v, "lake_ss.st_timestr", lake.st_timestr);
    if (key == "fin_timestr") return r.TimeString(v, "lake_ss.fin_timestr", lake.fin_timestr);
    if (key == "network") {
      std::string network;
      RETURN_IF_ERROR(r.String(v, "lake_ss.network", network));
      if (!IsKnownNetwork(network)) {
        return r.ValueError(
            v, "lake_ss.network",
            fmt::format("unknown network '{}' (known: {})", network, KnownNetworks()));
      }
      lake.network = network;
      return Status::Ok();
    }
    if (kPdrBackendLakeKeys.count(key)) return Status::Ok();
    return r.Unknown(k, "lake_ss", "lake_dir, st_timestr, fin_timestr, network");
  });
}

Status ReadWeb3(SectionReader& r, const YAML::Node& section) {
  Web3Config& web3 = r.cfg().web3;
  return r.ForEachKey(section, "web3_pp", [&](const YAML::Node& k, const YAML::Node& v) -> Status {
    // Scalar entries (e.g. `network:`) and everything but subgraph_url inside a network belong to
    // pdr-backend.
    if (!v.IsMap()) return Status::Ok();
    const std::string network = k.Scalar();
    const std::string name = "web3_pp." + network;
    return r.ForEachKey(v, name, [&](const YAML::Node& nk, const YAML::Node& nv) -> Status {
      if (nk.Scalar() != "subgraph_url") return Status::Ok();
      std::string url;
      RETURN_IF_ERROR(r.String(nv, name + ".subgraph_url", url));
      if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
        return r.ValueError(nv, name + ".subgraph_url",
                            fmt::format("'{}' is not an http:// or https:// URL", url));
      }
      web3.subgraph_urls[network] = url;
      return Status::Ok();
    });
  });
}

Status ReadFaults(SectionReader& r, const YAML::Node& section) {
  SimFaults& f = r.cfg().sim.faults;
  const std::string name = "sim_ss.faults";
  return r.ForEachKey(section, name, [&](const YAML::Node& k, const YAML::Node& v) -> Status {
    const std::string& key = k.Scalar();
    const std::string dotted = name + "." + key;
    if (key == "http_5xx") return r.Probability(v, dotted, f.http_5xx);
    if (key == "timeout") return r.Probability(v, dotted, f.timeout);
    if (key == "http_429") return r.Probability(v, dotted, f.http_429);
    if (key == "graphql_error") return r.Probability(v, dotted, f.graphql_error);
    if (key == "malformed") return r.Probability(v, dotted, f.malformed);
    if (key == "seed") {
      return r.Integer<uint64_t>(v, dotted, 0, std::numeric_limits<uint64_t>::max(), f.seed);
    }
    return r.Unknown(k, name, "http_5xx, timeout, http_429, graphql_error, malformed, seed");
  });
}

Status ReadSim(SectionReader& r, const YAML::Node& section) {
  SimConfig& sim = r.cfg().sim;
  return r.ForEachKey(section, "sim_ss", [&](const YAML::Node& k, const YAML::Node& v) -> Status {
    const std::string& key = k.Scalar();
    if (key == "seed") {
      return r.Integer<uint64_t>(v, "sim_ss.seed", 0, std::numeric_limits<uint64_t>::max(),
                                 sim.seed);
    }
    if (key == "now") return r.TimeString(v, "sim_ss.now", sim.now);
    if (key == "start") return r.TimeString(v, "sim_ss.start", sim.start);
    if (key == "indexing_lag") {
      std::string text;
      RETURN_IF_ERROR(r.String(v, "sim_ss.indexing_lag", text));
      Result<int64_t> ms = ParseDuration(text);
      if (!ms.ok()) return r.ValueError(v, "sim_ss.indexing_lag", ms.status().message());
      sim.indexing_lag_ms = *ms;
      return Status::Ok();
    }
    if (key == "predictoors") {
      return r.Integer<int>(v, "sim_ss.predictoors", 1, 100'000, sim.num_predictoors);
    }
    if (key == "pairs") {
      RETURN_IF_ERROR(r.StringList(v, "sim_ss.pairs", sim.pairs));
      for (const std::string& pair : sim.pairs) {
        size_t slash = pair.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == pair.size() ||
            pair.find('/', slash + 1) != std::string::npos) {
          return r.ValueError(v, "sim_ss.pairs",
                              fmt::format("'{}' is not a pair like BTC/USDT", pair));
        }
      }
      return Status::Ok();
    }
    if (key == "timeframes") {
      RETURN_IF_ERROR(r.StringList(v, "sim_ss.timeframes", sim.timeframes));
      for (const std::string& tf : sim.timeframes) {
        if (tf != "5m" && tf != "1h") {
          return r.ValueError(v, "sim_ss.timeframes",
                              fmt::format("unknown timeframe '{}' (known: 5m, 1h)", tf));
        }
      }
      return Status::Ok();
    }
    if (key == "source") return r.String(v, "sim_ss.source", sim.source);
    if (key == "faults") return ReadFaults(r, v);
    if (kPdrBackendSimKeys.count(key)) return Status::Ok();
    return r.Unknown(
        k, "sim_ss",
        "seed, now, indexing_lag, start, predictoors, pairs, timeframes, source, faults");
  });
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string FormatProbability(double p) { return fmt::format("{}", p); }

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

std::string KnownNetworks() {
  std::string out;
  for (const char* n : kNetworks) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

Origin OriginOf(const Config& cfg, const std::string& key) {
  auto it = cfg.origins.find(key);
  return it == cfg.origins.end() ? Origin{} : it->second;
}

std::vector<ConfigEntry> Entries(const Config& cfg) {
  std::vector<ConfigEntry> out;
  auto add = [&](const std::string& key, std::string value) {
    out.push_back({key, std::move(value), OriginOf(cfg, key)});
  };
  add("lake_ss.lake_dir", cfg.lake.lake_dir);
  add("lake_ss.st_timestr", cfg.lake.st_timestr);
  add("lake_ss.fin_timestr", cfg.lake.fin_timestr);
  add("lake_ss.network", cfg.lake.network);
  for (const auto& [network, url] : cfg.web3.subgraph_urls) {
    add("web3_pp." + network + ".subgraph_url", url);
  }
  add("sim_ss.seed", std::to_string(cfg.sim.seed));
  add("sim_ss.now", cfg.sim.now);
  add("sim_ss.indexing_lag", FormatDuration(cfg.sim.indexing_lag_ms));
  add("sim_ss.start", cfg.sim.start);
  add("sim_ss.predictoors", std::to_string(cfg.sim.num_predictoors));
  add("sim_ss.pairs", Join(cfg.sim.pairs));
  add("sim_ss.timeframes", Join(cfg.sim.timeframes));
  add("sim_ss.source", cfg.sim.source);
  add("sim_ss.faults.http_5xx", FormatProbability(cfg.sim.faults.http_5xx));
  add("sim_ss.faults.timeout", FormatProbability(cfg.sim.faults.timeout));
  add("sim_ss.faults.http_429", FormatProbability(cfg.sim.faults.http_429));
  add("sim_ss.faults.graphql_error", FormatProbability(cfg.sim.faults.graphql_error));
  add("sim_ss.faults.malformed", FormatProbability(cfg.sim.faults.malformed));
  add("sim_ss.faults.seed", std::to_string(cfg.sim.faults.seed));
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
    SectionReader r(path, cfg);
    if (root.IsNull()) return cfg;
    if (!root.IsMap()) return r.Error(root.Mark(), "expected a mapping of sections (lake_ss: ...)");
    RETURN_IF_ERROR(r.ForEachKey(root, "the top level",
                                 [&](const YAML::Node& k, const YAML::Node& v) -> Status {
                                   const std::string& key = k.Scalar();
                                   if (key == "lake_ss") return ReadLake(r, v);
                                   if (key == "web3_pp") return ReadWeb3(r, v);
                                   if (key == "sim_ss") return ReadSim(r, v);
                                   return Status::Ok();
                                 }));
  } catch (const YAML::Exception& e) {
    int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    return Status::Config(fmt::format("{}:{}: malformed YAML: {}", path, line, e.msg));
  } catch (const std::exception& e) {
    return Status::Config(fmt::format("{}: {}", path, e.what()));
  }
  return cfg;
}

}  // namespace predlake::config
