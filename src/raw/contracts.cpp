#include "raw/contracts.hpp"

#include <algorithm>
#include <cctype>

#include "lake/tables.hpp"
#include "raw/record.hpp"

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

Result<ContractMap> FetchContracts(gql::Client& client) {
  ContractMap out;
  std::string last_id;
  for (int page = 1;; ++page) {
    std::string where =
        last_id.empty() ? "" : ", where: {id_gt: " + gql::QuoteGraphqlString(last_id) + "}";
    std::string query = "{ predictContracts(first: " + std::to_string(kContractPage) +
                        ", orderBy: id, orderDirection: asc" + where +
                        ") { id secondsPerEpoch truevalSubmitTimeout token { id name "
                        "lastPriceValue nft { nftData { key value } } } } }";
    auto data = client.Query(query);
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
      c.seconds_per_epoch = r.Int("secondsPerEpoch");
      c.trueval_submit_timeout = r.Int("truevalSubmitTimeout");
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
      if (c.seconds_per_epoch <= 0 || c.trueval_submit_timeout < 0) {
        return Status::Source("predictContract " + c.id + ": implausible secondsPerEpoch " +
                              std::to_string(c.seconds_per_epoch) + " / truevalSubmitTimeout " +
                              std::to_string(c.trueval_submit_timeout));
      }
      last_id = rec["id"].get<std::string>();
      out[c.id] = std::move(c);
    }
    if (list->size() < static_cast<size_t>(kContractPage)) break;
  }
  return out;
}

Status StoreContracts(duck::Connection& conn, const ContractMap& contracts) {
  if (contracts.empty()) return Status::Ok();
  using lake::Col;
  constexpr const lake::TableDef& t = lake::kContractsTable;
  std::string params, set;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    params += (i == 0 ? "$" : ", $") + std::to_string(i + 1);
    if (i == 0) continue;
    const std::string name(t.columns[i].name);
    set += (set.empty() ? "" : ", ") + name + " = excluded." + name;
  }
  ASSIGN_OR_RETURN(
      duck::Prepared stmt,
      conn.Prepare("INSERT INTO " + std::string(t.name) + " VALUES (" + params + ") ON CONFLICT (" +
                       std::string(t.columns[0].name) + ") DO UPDATE SET " + set,
                   "store " + std::string(t.name)));
  auto bind_text = [&](size_t column, const std::optional<std::string>& text) {
    return text ? stmt.Bind(column + 1, std::string_view(*text)) : stmt.BindNull(column + 1);
  };
  for (const auto& [id, c] : contracts) {
    RETURN_IF_ERROR(stmt.Bind(Col(t, "ID") + 1, std::string_view(id)));
    RETURN_IF_ERROR(bind_text(Col(t, "pair"), c.pair));
    RETURN_IF_ERROR(bind_text(Col(t, "timeframe"), c.timeframe));
    RETURN_IF_ERROR(bind_text(Col(t, "source"), c.source));
    RETURN_IF_ERROR(stmt.Bind(Col(t, "seconds_per_epoch") + 1, c.seconds_per_epoch));
    RETURN_IF_ERROR(stmt.Bind(Col(t, "trueval_submit_timeout") + 1, c.trueval_submit_timeout));
    RETURN_IF_ERROR(stmt.Execute().status());
  }
  return Status::Ok();
}

int64_t MaxSlotSettleMs(const ContractMap& contracts) {
  int64_t out = 0;
  for (const auto& [id, c] : contracts) {
    out = std::max(out, (c.seconds_per_epoch + c.trueval_submit_timeout) * 1000);
  }
  return out;
}

}  // namespace predlake::raw
