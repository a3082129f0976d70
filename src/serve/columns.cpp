// The dashboard's column definitions and which columns each table shows first (pages.hpp). The
// definitions are the ones docs/serve.md lists ("Column definitions"); tests/serve checks that the
// docs hold this table's text.
#include <algorithm>

#include "serve/pages.hpp"

namespace predlake::serve {

const std::vector<ColumnDef>& ColumnDefs() {
  static const std::vector<ColumnDef> defs = {
      {"rank", "Place by cash P&L among the rows shown (after the filters), 1 the highest."},
      {"user", "The predictoor's address (lower case)."},
      {"mine", "Whether the address is one of predictoor_ss.my_addresses."},
      {"feeds", "Feeds the predictoor predicted on in the period."},
      {"predictions", "Predictions submitted in the period (by slot day)."},
      {"resolved", "Predictions in paying slots whose value is revealed (claimed)."},
      {"unrevealed", "Predictions in paying slots whose value was never revealed."},
      {"correct", "Resolved predictions equal to the trueval."},
      {"accuracy", "correct / resolved: accuracy over revealed predictions only."},
      {"revealed_share", "resolved / (resolved + unrevealed): how much of the accuracy is known."},
      {"accuracy_low", "correct / (resolved + unrevealed): every unrevealed prediction wrong."},
      {"accuracy_high", "(correct + unrevealed) / (resolved + unrevealed): every one right."},
      {"stake", "OCEAN staked on the predictions (every slot status)."},
      {"settled_stake", "Stake of the predictions in paying slots, claimed or not."},
      {"settled_payout", "Payouts received for the predictions in paying slots."},
      {"cash_pnl",
       "settled_payout - settled_stake: payouts received minus the stakes in paying slots. The "
       "leaderboard's ranking; NULL when a stake is unknown."},
      {"cash_roi",
       "cash_pnl / settled_stake: the cash return on each OCEAN staked in paying slots."},
      {"apr",
       "cash_roi x 365 / days_active: the cash return on stake annualised, simple (not "
       "compounded)."},
      {"days_active",
       "UTC slot days of the period with at least one prediction; a partial day counts as one."},
      {"resolved_stake", "Stake of the resolved (revealed) predictions."},
      {"profit", "Payout minus stake over resolved (revealed) predictions only."},
      {"roi", "profit / resolved_stake: the return over revealed predictions only."},
      {"unrevealed_stake", "Stake of the predictions in paying slots never revealed."},
      {"refund_pending", "Stakes in canceled slots not claimed back yet."},
      {"refund_claimed", "Refunds of canceled slots claimed."},
      {"contract", "The feed's contract address."},
      {"pair", "The feed's pair (base/quote)."},
      {"timeframe", "The feed's epoch length (5m, 1h)."},
      {"source", "The exchange the feed's truevals come from."},
      {"predictoors", "Distinct predictoors with predictions in the period."},
      {"active_feeds", "Feeds with at least one prediction in the period."},
      {"slots", "Slots (epochs) of the period; on the trueval delay, those with a trueval."},
      {"slots_canceled", "Slots without a trueval by their deadline; their stakes are refunded."},
      {"consensus_slots", "Paying slots with a trueval and stake, the consensus' base."},
      {"consensus_accuracy",
       "Stake on the true side / the slots' stake, over the consensus slots (stake-weighted)."},
      {"consensus_slot_accuracy",
       "Share of the consensus slots whose stake majority was right (a tie is not)."},
      {"subscriptions", "Subscriptions bought in the period."},
      {"buyers", "Distinct buyers of subscriptions."},
      {"sales", "OCEAN paid for subscriptions (their price)."},
      {"revenue", "The slots' revenue the predictoors share (OCEAN)."},
      {"day", "The UTC slot day."},
      {"run_id", "The run's number in the ledger."},
      {"command", "The command the run was."},
      {"status",
       "The outcome: of a run (succeeded, failed, aborted) or a slot (paying, canceled, pending)."},
      {"started_at", "When the run started (UTC)."},
      {"ended_at", "When the run ended (UTC)."},
      {"duration_s", "The run's wall time in seconds."},
      {"window_start", "Start of the time window the run fetched."},
      {"window_end", "End of the time window the run fetched."},
      {"checkpoint_after", "The checkpoint after the run: built tables hold everything before it."},
      {"error", "Why the run failed."},
      {"table_name", "The table's name."},
      {"start_at", "The raw table's first instant fetched."},
      {"watermark_at", "The raw table is complete up to this instant."},
      {"updated_at", "When the watermark last moved."},
      {"kind", "The table's kind (raw, bronze, gold, ...)."},
      {"rows", "Rows in the snapshot's table."},
      {"slot_at", "The slot's start (UTC)."},
      {"predvalue", "The predicted direction: true up, false down; NULL until revealed."},
      {"truevalue", "The true direction: true up, false down; NULL until known."},
      {"payout", "The payout received for the prediction; NULL until claimed."},
      {"unclaimed_predictions", "Predictions in paying slots without a claim."},
      {"unclaimed_stake", "Their stake (the payout, if right, is unknown until claimed)."},
      {"refunds_pending", "Predictions in canceled slots whose refund is not claimed."},
      {"awaiting_trueval", "Predictions in slots still waiting for their trueval (pending)."},
      {"awaiting_trueval_stake", "Their stake (OCEAN): neither won nor lost yet."},
      {"awaiting_claim", "Predictions in paying slots whose payout is not claimed yet."},
      {"awaiting_claim_stake",
       "Their stake (OCEAN): cash P&L counts it as not returned until the claim."},
      {"first_at", "The buyer's first subscription in the period (UTC)."},
      {"last_at", "The buyer's last subscription in the period (UTC)."},
      {"n_predictions", "Predictions in the slot."},
      {"predicted_stake", "Stake of the slot's predictions."},
      {"deadline_at", "The slot's trueval deadline (UTC)."},
      {"mean_s", "Mean seconds from the epoch's end to the trueval."},
      {"median_s", "Median seconds from the epoch's end to the trueval."},
      {"p95_s", "95th percentile of the seconds from the epoch's end to the trueval."},
      {"max_s", "Most seconds from the epoch's end to the trueval."},
      {"id", "The prediction's id (contract-slot-predictoor)."},
      {"match", "What matched the search: a predictoor or a feed."},
  };
  return defs;
}

const ColumnDef* FindColumnDef(std::string_view name) {
  for (const ColumnDef& d : ColumnDefs()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// The columns a table shows before "more columns" (its page's subject first); a table not listed
// shows all.
const std::vector<std::string>* MainColumns(std::string_view page_path, std::string_view table_id) {
  static const std::vector<std::string> kLeaderboard = {"rank",        "user",     "cash_pnl",
                                                        "cash_roi",    "accuracy", "revealed_share",
                                                        "predictions", "stake",    "apr"};
  static const std::vector<std::string> kFeeds = {
      "contract", "pair",     "timeframe", "source", "sales", "predictoors",
      "accuracy", "cash_pnl", "cash_roi",  "apr",    "buyers"};
  // The predictoor's summary and per-day tables: in the order of part_metric_columns.sql.
  static const std::vector<std::string> kMetrics = {
      "cash_pnl", "predictions", "accuracy", "revealed_share", "stake", "settled_payout", "profit"};
  static const std::vector<std::string> kMetricsDaily = [] {
    std::vector<std::string> cols = kMetrics;
    cols.insert(cols.begin(), "day");
    return cols;
  }();
  static const std::vector<std::string> kRecent = {"slot_at", "pair",      "timeframe", "status",
                                                   "stake",   "predvalue", "truevalue", "payout"};
  static const std::vector<std::string> kPerFeed = {"contract",       "pair",        "timeframe",
                                                    "cash_pnl",       "predictions", "accuracy",
                                                    "revealed_share", "stake"};
  static const std::vector<std::string> kTop = {"user",  "predictions", "accuracy",
                                                "stake", "cash_pnl",    "revealed_share"};
  static const std::vector<std::string> kNetwork = {"predictoors",    "predictions", "accuracy",
                                                    "revealed_share", "stake",       "cash_pnl",
                                                    "sales",          "revenue"};
  static const std::vector<std::string> kDaily = [] {
    std::vector<std::string> cols = kNetwork;
    cols.insert(cols.begin(), "day");
    return cols;
  }();
  // /compare: one item per row (its column is `user` or `contract`), the figures its charts draw.
  static const std::vector<std::string> kCompared = {
      "user", "contract", "predictions", "accuracy", "revealed_share", "stake", "cash_pnl"};
  static const std::vector<std::string> kComparedDaily = [] {
    std::vector<std::string> cols = kCompared;
    cols.insert(cols.begin(), "day");
    return cols;
  }();
  if (page_path == "/compare") {
    if (table_id == "compared") return &kCompared;
    if (table_id == "daily") return &kComparedDaily;
  }
  const bool predictoor = page_path.rfind("/predictoor/", 0) == 0;
  const bool feed = page_path.rfind("/feed/", 0) == 0;
  if (page_path == "/predictoors" && (table_id == "predictoors" || table_id == "my_total")) {
    return &kLeaderboard;
  }
  if (page_path == "/feeds" && table_id == "feeds") return &kFeeds;
  if (feed && table_id == "summary") return &kFeeds;
  if (predictoor && table_id == "recent") return &kRecent;
  if (predictoor && table_id == "feeds") return &kPerFeed;
  if (predictoor && table_id == "summary") return &kMetrics;
  if (predictoor && table_id == "daily") return &kMetricsDaily;
  if (feed && table_id == "top_predictoors") return &kTop;
  if (page_path == "/" && table_id == "network") return &kNetwork;
  if (page_path == "/" && table_id == "daily") return &kDaily;
  return nullptr;
}

bool IsMainColumn(std::string_view page_path, std::string_view table_id, const std::string& col) {
  const std::vector<std::string>* main = MainColumns(page_path, table_id);
  if (main == nullptr) return true;
  return std::find(main->begin(), main->end(), col) != main->end();
}

}  // namespace predlake::serve
