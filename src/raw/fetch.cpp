#include "raw/fetch.hpp"

#include <algorithm>

namespace predlake::raw {
namespace {

using lake::Col;

// Looks up the feed of a record; an unknown contract means the contracts were read before the
// contract existed, which FetchHead-then-FetchContracts ordering rules out, or a broken source.
const Contract* FindContract(const ContractMap& contracts, const std::string& id, RecordReader& r) {
  if (!r.ok()) return nullptr;
  auto it = contracts.find(id);
  return it == contracts.end() ? nullptr : &it->second;
}

Status UnknownContract(const std::string& id) {
  return Status::Source("references contract " + id + ", which is not among the predictContracts");
}

Cell Text(const std::optional<std::string>& s) { return s ? Cell(*s) : Cell(); }

Status ConvertPrediction(RecordReader& r, const ContractMap& contracts, Row& row) {
  std::string id = r.String("id");
  std::string contract = r.String("slot.predictContract.id");
  std::string stake = r.Decimal("stake");
  int64_t ts = r.Int("timestamp");
  int64_t slot = r.Int("slot.slot");
  std::string user = r.String("user.id");
  const Contract* c = FindContract(contracts, contract, r);
  if (!r.ok()) return Status::Ok();
  if (c == nullptr) return UnknownContract(contract);
  // predvalue, truevalue and payout stay NULL: unknown when the prediction is made.
  constexpr const TableDef& t = lake::kPredictionsTable;
  row.assign(t.columns.size(), Cell());
  row[Col(t, "ID")] = std::move(id);
  row[Col(t, "contract")] = std::move(contract);
  row[Col(t, "pair")] = Text(c->pair);
  row[Col(t, "timeframe")] = Text(c->timeframe);
  row[Col(t, "stake")] = std::move(stake);
  row[Col(t, "timestamp")] = ts * 1000;
  row[Col(t, "source")] = Text(c->source);
  row[Col(t, "slot")] = slot;
  row[Col(t, "user")] = std::move(user);
  return Status::Ok();
}

Status ConvertTrueval(RecordReader& r, const ContractMap& contracts, Row& row) {
  std::string id = r.String("id");
  std::string contract = r.String("slot.predictContract.id");
  int64_t ts = r.Int("timestamp");
  bool truevalue = r.Bool("trueValue");
  int64_t slot = r.Int("slot.slot");
  std::string revenue = r.Decimal("slot.revenue");
  std::string up = r.Decimal("slot.roundSumStakesUp");
  std::string total = r.Decimal("slot.roundSumStakes");
  const Contract* c = FindContract(contracts, contract, r);
  if (!r.ok()) return Status::Ok();
  if (c == nullptr) return UnknownContract(contract);
  constexpr const TableDef& t = lake::kTruevalsTable;
  row.assign(t.columns.size(), Cell());
  row[Col(t, "ID")] = std::move(id);
  row[Col(t, "token")] = Text(c->pair);
  row[Col(t, "timestamp")] = ts * 1000;
  row[Col(t, "truevalue")] = truevalue;
  row[Col(t, "slot")] = slot;
  row[Col(t, "revenue")] = std::move(revenue);
  row[Col(t, "roundSumStakesUp")] = std::move(up);
  row[Col(t, "roundSumStakes")] = std::move(total);
  return Status::Ok();
}

Status ConvertPayout(RecordReader& r, const ContractMap& contracts, Row& row) {
  std::string id = r.String("id");
  std::string contract = r.String("prediction.slot.predictContract.id");
  std::string user = r.String("prediction.user.id");
  int64_t slot = r.Int("prediction.slot.slot");
  int64_t ts = r.Int("timestamp");
  std::string payout = r.Decimal("payout");
  bool predvalue = r.Bool("predictedValue");
  bool truevalue = r.Bool("trueValue");  // Boolean!: false for a refund
  std::string stake = r.Decimal("prediction.stake");
  const Contract* c = FindContract(contracts, contract, r);
  if (!r.ok()) return Status::Ok();
  if (c == nullptr) return UnknownContract(contract);
  constexpr const TableDef& t = lake::kPayoutsTable;
  row.assign(t.columns.size(), Cell());
  row[Col(t, "ID")] = std::move(id);
  row[Col(t, "token")] = Text(c->pair);
  row[Col(t, "user")] = std::move(user);
  row[Col(t, "slot")] = slot;
  row[Col(t, "timestamp")] = ts * 1000;
  row[Col(t, "payout")] = std::move(payout);
  row[Col(t, "predvalue")] = predvalue;
  row[Col(t, "truevalue")] = truevalue;
  row[Col(t, "stake")] = std::move(stake);
  return Status::Ok();
}

Status ConvertSubscription(RecordReader& r, const ContractMap& contracts, Row& row) {
  std::string id = r.String("id");
  std::string contract = r.String("predictContract.id");
  std::string tx = r.String("txId");
  std::string price = r.Decimal("predictContract.token.lastPriceValue");
  int64_t ts = r.Int("timestamp");
  std::string user = r.String("user.id");
  const Contract* c = FindContract(contracts, contract, r);
  if (!r.ok()) return Status::Ok();
  if (c == nullptr) return UnknownContract(contract);
  constexpr const TableDef& t = lake::kSubscriptionsTable;
  row.assign(t.columns.size(), Cell());
  row[Col(t, "ID")] = std::move(id);
  row[Col(t, "pair")] = Text(c->pair);
  row[Col(t, "timeframe")] = Text(c->timeframe);
  row[Col(t, "source")] = Text(c->source);
  row[Col(t, "tx_id")] = std::move(tx);
  row[Col(t, "last_price_value")] = std::move(price);
  row[Col(t, "timestamp")] = ts * 1000;
  row[Col(t, "user")] = std::move(user);
  return Status::Ok();
}

Status ConvertSlot(RecordReader& r, const ContractMap&, Row& row) {
  std::string id = r.String("id");
  int64_t slot = r.Int("slot");
  std::string up = r.Decimal("roundSumStakesUp");
  std::string total = r.Decimal("roundSumStakes");
  std::string status = r.String("status");
  Cell truevalue;
  if (const nlohmann::json* tvs = r.Find("trueValues"); tvs != nullptr && r.ok()) {
    if (!tvs->is_array()) return Status::Source("field `trueValues` should be a list");
    if (!tvs->empty()) {
      RecordReader tv(tvs->front());
      bool value = tv.Bool("trueValue");
      if (!tv.ok()) return Status::Source("trueValues[0]: " + tv.status().message());
      truevalue = value;
    }
  }
  if (!r.ok()) return Status::Ok();
  constexpr const TableDef& t = lake::kSlotsTable;
  row.assign(t.columns.size(), Cell());
  row[Col(t, "ID")] = std::move(id);
  row[Col(t, "timestamp")] = slot * 1000;
  row[Col(t, "slot")] = slot;
  row[Col(t, "truevalue")] = std::move(truevalue);
  row[Col(t, "roundSumStakesUp")] = std::move(up);
  row[Col(t, "roundSumStakes")] = std::move(total);
  row[Col(t, "status")] = std::move(status);
  return Status::Ok();
}

const std::vector<FetchSpec>& Specs() {
  static const std::vector<FetchSpec> kSpecs = {
      {&lake::kPredictionsTable, "predictPredictions", "timestamp",
       "{ id timestamp user { id } stake slot { slot predictContract { id } } }",
       &ConvertPrediction},
      {&lake::kTruevalsTable, "predictTrueVals", "timestamp",
       "{ id timestamp trueValue slot { slot revenue roundSumStakesUp roundSumStakes "
       "predictContract { id } } }",
       &ConvertTrueval},
      {&lake::kPayoutsTable, "predictPayouts", "timestamp",
       "{ id timestamp payout predictedValue trueValue prediction { stake user { id } slot { slot "
       "predictContract { id } } } }",
       &ConvertPayout},
      {&lake::kSubscriptionsTable, "predictSubscriptions", "timestamp",
       "{ id timestamp txId user { id } predictContract { id token { lastPriceValue } } }",
       &ConvertSubscription},
      {&lake::kSlotsTable, "predictSlots", "slot",
       "{ id slot status roundSumStakesUp roundSumStakes trueValues { trueValue } predictContract "
       "{ id } }",
       &ConvertSlot},
  };
  return kSpecs;
}

}  // namespace

int64_t CeilSeconds(int64_t ms) { return ms >= 0 ? (ms + 999) / 1000 : -((-ms) / 1000); }

const FetchSpec* FindFetchSpec(std::string_view table) {
  for (const FetchSpec& s : Specs()) {
    if (s.table->name == table) return &s;
  }
  return nullptr;
}

Pager::Pager(const FetchSpec& spec, const ContractMap& contracts, int64_t from_ms, int64_t end_ms,
             int page_size)
    : spec_(spec),
      contracts_(contracts),
      from_ms_(from_ms),
      end_ms_(end_ms),
      from_s_(CeilSeconds(from_ms)),
      end_s_(CeilSeconds(end_ms)),
      page_size_(std::clamp(page_size, 1, kMaxPageSize)) {}

std::string Pager::Query() const {
  const std::string f(spec_.cursor_field);
  const std::string head = std::string(spec_.entity) + "(first: " + std::to_string(page_size_);
  const std::string end = f + "_lt: " + std::to_string(end_s_);
  std::string q = "{ ";
  if (!cursor_) {
    q += "b: " + head + ", orderBy: " + f + ", orderDirection: asc, where: {" + f +
         "_gte: " + std::to_string(from_s_) + ", " + end + "}) " + std::string(spec_.selection);
  } else {
    const std::string t = std::to_string(cursor_->first);
    q += "a: " + head + ", orderBy: id, orderDirection: asc, where: {" + f + ": " + t +
         ", id_gt: " + gql::QuoteGraphqlString(cursor_->second) + "}) " +
         std::string(spec_.selection);
    q += " b: " + head + ", orderBy: " + f + ", orderDirection: asc, where: {" + f + "_gt: " + t +
         ", " + end + "}) " + std::string(spec_.selection);
  }
  return q + " }";
}

Status Pager::ConvertList(const nlohmann::json& data, std::string_view key, int page,
                          std::vector<Row>& rows,
                          std::optional<std::pair<int64_t, std::string>>& last,
                          size_t& count) const {
  auto list = data.find(key);
  const std::string where = "page " + std::to_string(page) + ": ";
  if (list == data.end() || !list->is_array()) {
    return Status::Source(where + "the answer has no " + std::string(spec_.entity) + " list");
  }
  count = list->size();
  if (count > static_cast<size_t>(page_size_)) {
    return Status::Source(where + "got " + std::to_string(count) + " records, asked for at most " +
                          std::to_string(page_size_));
  }
  for (const nlohmann::json& rec : *list) {
    RecordReader r(rec);
    std::string id = r.String("id");
    int64_t cursor = r.Int(spec_.cursor_field);
    std::string who =
        where + std::string(spec_.entity) + " record " + (id.empty() ? "(no id)" : id) + ": ";
    if (!r.ok()) return Status::Source(who + r.status().message());
    // The cursor only works if the source returns rows in (cursor, id) order inside the window;
    // check it, since a violation would silently lose rows.
    if (cursor < from_s_ || cursor >= end_s_) {
      return Status::Source(who + std::string(spec_.cursor_field) + " " + std::to_string(cursor) +
                            " is outside the requested range [" + std::to_string(from_s_) + ", " +
                            std::to_string(end_s_) + ")");
    }
    std::pair<int64_t, std::string> key_now{cursor, id};
    if (last && !(*last < key_now)) {
      return Status::Source(who + "records are not in (" + std::string(spec_.cursor_field) +
                            ", id) order");
    }
    Row row;
    Status st = spec_.convert(r, contracts_, row);
    if (!r.ok()) return Status::Source(who + r.status().message());
    if (!st.ok()) return Status::Source(who + st.message());
    rows.push_back(std::move(row));
    last = std::move(key_now);
  }
  return Status::Ok();
}

Result<Page> Pager::Next(gql::Client& client) {
  if (done_) return Status::Internal("Pager::Next called after the last page");
  Page page;
  page.number = ++pages_;
  if (from_s_ >= end_s_) {
    // No whole second lies in the window: nothing can be there.
    done_ = true;
    page.last = true;
    page.watermark_ms = end_ms_;
    return page;
  }
  auto data = client.Query(Query(), /*shrinkable=*/page_size_ > 1);
  // A page too large or slow for the server is asked again, from the same cursor, with half the
  // `first` (the tie-group query uses the same `first`, so the full-page logic below still holds).
  while (!data.ok() && page_size_ > 1 &&
         (client.last_error_kind() == gql::ErrorKind::kTooLarge ||
          client.last_error_kind() == gql::ErrorKind::kTimeout)) {
    page_size_ = std::max(1, page_size_ / 2);
    client.CountSmallerPage();
    data = client.Query(Query(), /*shrinkable=*/page_size_ > 1);
  }
  if (!data.ok()) return data.status().WithContext("page " + std::to_string(page.number));

  std::optional<std::pair<int64_t, std::string>> last = cursor_;
  size_t count = 0;
  if (cursor_) {
    RETURN_IF_ERROR(ConvertList(*data, "a", page.number, page.rows, last, count));
    if (count == static_cast<size_t>(page_size_)) {
      // The tie group continues past this page; what follows it waits.
      page.watermark_ms = cursor_->first * 1000;
      cursor_ = last;
      return page;
    }
  }
  RETURN_IF_ERROR(ConvertList(*data, "b", page.number, page.rows, last, count));
  if (count == static_cast<size_t>(page_size_)) {
    cursor_ = last;
    page.watermark_ms = std::max(from_ms_, last->first * 1000);
    return page;
  }
  done_ = true;
  page.last = true;
  page.watermark_ms = end_ms_;
  return page;
}

}  // namespace predlake::raw
