#include "raw/contracts.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <variant>
#include <vector>

#include "lake/tables.hpp"
#include "raw/record.hpp"
#include "raw/store.hpp"

namespace predlake::raw {
namespace {

constexpr int kContractPage = 1000;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::string_view MetadataOriginName(MetadataOrigin origin) {
  switch (origin) {
    case MetadataOrigin::kNft:
      return "nft";
    case MetadataOrigin::kTokenName:
      return "token.name";
    case MetadataOrigin::kSecondsPerEpoch:
      return "secondsPerEpoch";
    case MetadataOrigin::kConfig:
      return "config";
    case MetadataOrigin::kMissing:
      return "missing";
  }
  return "?";
}

std::string MetadataFrom(MetadataOrigin pair, MetadataOrigin timeframe, MetadataOrigin source) {
  if (pair == MetadataOrigin::kNft && timeframe == MetadataOrigin::kNft &&
      source == MetadataOrigin::kNft) {
    return "nft";
  }
  return "pair=" + std::string(MetadataOriginName(pair)) +
         " timeframe=" + std::string(MetadataOriginName(timeframe)) +
         " source=" + std::string(MetadataOriginName(source));
}

std::optional<std::string> TimeframeOfEpoch(int64_t seconds_per_epoch) {
  if (seconds_per_epoch == 300) return "5m";
  if (seconds_per_epoch == 3600) return "1h";
  return std::nullopt;
}

std::optional<std::string> DecodeHexText(std::string_view hex) {
  if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X')) return std::nullopt;
  hex.remove_prefix(2);
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::string UnstorableText(std::string_view text) {
  if (text.size() > kMaxFeedFieldBytes) {
    return "is " + std::to_string(text.size()) + " bytes long (at most " +
           std::to_string(kMaxFeedFieldBytes) + ")";
  }
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > text.size()) return "is not valid UTF-8";
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc >> 6) != 0x2) return "is not valid UTF-8";
      cp = (cp << 6) | (cc & 0x3f);
    }
    const bool overlong =
        (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return "is not valid UTF-8";
    if (cp < 0x20 || cp == 0x7f) return "holds a control character";
    i += n;
  }
  return "";
}

Result<ContractMap> FetchContracts(gql::Client& client, std::string_view fallback_source) {
  ContractMap out;
  std::string last_id;
  // A server whose largest `first` is smaller (or a page too slow) gets half the page, as the
  // tables' pages do (raw/fetch.cpp).
  int page_size = kContractPage;
  for (int page = 1;; ++page) {
    std::string where =
        last_id.empty() ? "" : ", where: {id_gt: " + gql::QuoteGraphqlString(last_id) + "}";
    auto query = [&]() {
      return "{ predictContracts(first: " + std::to_string(page_size) +
             ", orderBy: id, orderDirection: asc" + where +
             ") { id secondsPerEpoch truevalSubmitTimeout token { id name "
             "lastPriceValue nft { nftData { key value } } } } }";
    };
    auto data = client.Query(query(), /*shrinkable=*/page_size > 1);
    while (!data.ok() && page_size > 1 &&
           (client.last_error_kind() == gql::ErrorKind::kTooLarge ||
            client.last_error_kind() == gql::ErrorKind::kTimeout)) {
      page_size = std::max(1, page_size / 2);
      client.CountSmallerPage();
      data = client.Query(query(), /*shrinkable=*/page_size > 1);
    }
    if (!data.ok())
      return data.status().WithContext("predictContracts page " + std::to_string(page));
    auto list = data->find("predictContracts");
    if (list == data->end() || !list->is_array()) {
      return Status::Source("predictContracts page " + std::to_string(page) +
                            ": the answer has no predictContracts list");
    }
    for (const nlohmann::json& rec : *list) {
      RecordReader r(rec);
      Contract c;
      c.id = Lower(r.String("id"));
      // A setting that is no int64 sets this contract aside, not the whole fetch.
      std::string odd_setting;
      auto setting = [&](const char* field) -> int64_t {
        RecordReader one(rec);
        const int64_t v = one.Int(field);
        if (!one.ok() && odd_setting.empty()) odd_setting = one.status().message();
        return one.ok() ? v : 0;
      };
      c.seconds_per_epoch = setting("secondsPerEpoch");
      c.trueval_submit_timeout = setting("truevalSubmitTimeout");
      std::optional<std::string> token_name;
      if (const nlohmann::json* name = r.Find("token.name"); name && name->is_string()) {
        token_name = name->get<std::string>();
        if (token_name->empty()) token_name.reset();  // the mapping's value when name() reverts
      }
      if (const nlohmann::json* items = r.Find("token.nft.nftData"); items && r.ok()) {
        if (!items->is_array()) {
          return Status::Source("predictContract " + c.id +
                                ": field `token.nft.nftData` should be a list");
        }
        for (const nlohmann::json& item : *items) {
          RecordReader kv(item);
          std::string key = Lower(kv.String("key"));
          std::string value = kv.String("value");
          if (!kv.ok()) {
            return Status::Source("predictContract " + c.id + ": nftData " + kv.status().message());
          }
          std::optional<std::string>* slot = key == lake::kNftPairKey        ? &c.pair
                                             : key == lake::kNftTimeframeKey ? &c.timeframe
                                             : key == lake::kNftSourceKey    ? &c.source
                                                                             : nullptr;
          if (slot == nullptr) continue;
          *slot = DecodeHexText(value);
          if (!*slot) {
            return Status::Source("predictContract " + c.id + ": nftData value \"" +
                                  value.substr(0, 80) + "\" is not hex-encoded text");
          }
        }
      }
      if (!r.ok()) {
        std::string who = c.id.empty() ? "a predictContract" : "predictContract " + c.id;
        return Status::Source(who + ": " + r.status().message());
      }
      auto origin = [](const std::optional<std::string>& v) {
        return v ? MetadataOrigin::kNft : MetadataOrigin::kMissing;
      };
      MetadataOrigin pair_from = origin(c.pair), timeframe_from = origin(c.timeframe),
                     source_from = origin(c.source);
      if (!c.pair && token_name) {
        c.pair = token_name;
        pair_from = MetadataOrigin::kTokenName;
      }
      if (!c.timeframe) {
        c.timeframe = TimeframeOfEpoch(c.seconds_per_epoch);
        if (c.timeframe) timeframe_from = MetadataOrigin::kSecondsPerEpoch;
      }
      if (!c.source && !fallback_source.empty()) {
        c.source = std::string(fallback_source);
        source_from = MetadataOrigin::kConfig;
      }
      c.metadata_from = MetadataFrom(pair_from, timeframe_from, source_from);
      // Fields that cannot be stored (not UTF-8, a megabyte long, control characters) are
      // dropped, so that the contract's events are stored without them, and set it aside.
      std::string odd_field;
      for (auto [name, field] : {std::pair{"pair", &c.pair}, std::pair{"timeframe", &c.timeframe},
                                 std::pair{"source", &c.source}}) {
        if (!*field) continue;
        const std::string why = UnstorableText(**field);
        if (why.empty()) continue;
        if (odd_field.empty()) odd_field = std::string(name) + " " + why;
        field->reset();
      }
      if (!odd_setting.empty()) {
        c.unusable = odd_setting;
      } else if (!odd_field.empty()) {
        c.unusable = odd_field;
      } else if (c.seconds_per_epoch <= 0) {
        c.unusable = "secondsPerEpoch is " + std::to_string(c.seconds_per_epoch) +
                     " (its settings are not indexed yet)";
      } else if (c.trueval_submit_timeout < 0) {
        c.unusable = "truevalSubmitTimeout is " + std::to_string(c.trueval_submit_timeout);
      } else if (!c.pair || !c.timeframe) {
        c.unusable = std::string("no ") + (!c.pair ? "pair" : "timeframe") +
                     " (neither its NFT data nor the fallback gives one)";
      }
      last_id = rec["id"].get<std::string>();
      out[c.id] = std::move(c);
    }
    if (list->size() < static_cast<size_t>(page_size)) break;
  }
  return out;
}

Status StoreContracts(duck::Connection& conn, const ContractMap& contracts) {
  if (contracts.empty()) return Status::Ok();
  using lake::Col;
  constexpr const lake::TableDef& t = lake::kContractsTable;
  const std::string table(t.name);
  // Every contract is offered on every fetch: they go through an appender into a temporary table
  // and from there in one statement that writes only the rows that changed (one prepared INSERT
  // per contract cost 1-4 ms each, and wrote every row to the log again).
  ASSIGN_OR_RETURN(TableStage stage, TableStage::Open(conn, table, "store " + table));
  duck::Appender& app = stage.appender();
  using Cell = std::variant<std::monostate, std::string_view, int64_t>;
  std::vector<Cell> row(t.columns.size());
  // Views into `contracts`, which outlives the appends.
  auto text = [](const std::optional<std::string>& v) {
    return v ? Cell(std::string_view(*v)) : Cell();
  };
  for (const auto& [id, c] : contracts) {
    if (!c.unusable.empty()) continue;
    row[Col(t, "ID")] = std::string_view(id);
    row[Col(t, "pair")] = text(c.pair);
    row[Col(t, "timeframe")] = text(c.timeframe);
    row[Col(t, "source")] = text(c.source);
    row[Col(t, "seconds_per_epoch")] = c.seconds_per_epoch;
    row[Col(t, "trueval_submit_timeout")] = c.trueval_submit_timeout;
    row[Col(t, "metadata_from")] = std::string_view(c.metadata_from);
    for (const Cell& cell : row) {
      if (const auto* v = std::get_if<std::string_view>(&cell)) {
        RETURN_IF_ERROR(app.Append(*v));
      } else if (const auto* n = std::get_if<int64_t>(&cell)) {
        RETURN_IF_ERROR(app.Append(*n));
      } else {
        RETURN_IF_ERROR(app.AppendNull());
      }
    }
    RETURN_IF_ERROR(app.EndRow());
  }
  // EXCEPT keeps the new and the changed rows only (NULLs compare equal in it). Usually there are
  // none: counting them first costs a fraction of the upsert's planning.
  const std::string changed = "FROM " + stage.name() + " EXCEPT FROM " + table;
  const std::string staged = "SELECT * FROM " + stage.name();
  return stage
      .Write("SELECT count(*) FROM (" + changed + ")",
             {UpdateStoredIdsSql(t, staged, "TRUE"), InsertNewIdsSql(t, staged, "TRUE")})
      .status();
}

int64_t MaxSlotSettleMs(const ContractMap& contracts) {
  int64_t out = 0;
  for (const auto& [id, c] : contracts) {
    if (!c.unusable.empty()) continue;
    out = std::max(out, (c.seconds_per_epoch + c.trueval_submit_timeout) * 1000);
  }
  return out;
}

}  // namespace predlake::raw
