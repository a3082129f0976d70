// The simulated Predictoor world: feeds, predictoors and every event they produce (docs/design.md
// section 7).
//
// Every event is a pure function of the configuration (seed, start, feeds, predictoors) and of keys
// such as (feed, slot, predictoor), computed with counter-based hashing. So the world up to time T
// does not depend on "now", and the events of a window are produced at a cost that follows the
// window, not the history before it. The head (now minus the indexing lag) is not part of the
// world: callers apply it as a visibility cut.
//
// Timeline of one slot `s` (unix seconds) of a feed with epoch E:
//   predictions at [s - E, s); trueval at s + E + 3..40 s; or, for ~2% of slots, no trueval and the
//   status turns Canceled at s + E + truevalSubmitTimeout. Payouts are claimed after resolution:
//   within 2 minutes by "immediate" claimers, in batches every 1-48 hours by periodic claimers (a
//   batch pays every slot resolved since the previous batch), never by some; at most
//   kMaxPayoutDelay after resolution.
// Subscriptions last 24 h; the price of one bought at t is spread over the slots s with t in [s -
// 24h, s).
//
// A World is immutable after Create and safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.hpp"
#include "config/config.hpp"
#include "source/exchange/exchange.hpp"
#include "source/sim/wei.hpp"

namespace predlake::sim {

inline constexpr int64_t kDay = 86'400;
inline constexpr int64_t kMaxImmediateClaimDelay = 120;
inline constexpr int64_t kMaxTruevalDelay = 40;
inline constexpr int64_t kMinTruevalDelay = 3;
inline constexpr int64_t kMaxPayoutDelay = 3 * kDay;

struct Feed {
  int index = 0;
  std::string pair;       // "BTC/USDT"
  std::string timeframe;  // "5m"
  std::string source;     // "binance"
  int64_t epoch = 0;      // seconds per epoch
  int64_t timeout = 0;    // truevalSubmitTimeout, seconds
  std::string contract;   // lower-case 0x + 40 hex
  std::string token;      // the datatoken's address
  std::string nft;        // the data NFT's address
  bool nft_null = false;  // the subgraph answers `token.nft: null` (sim_ss.nftless_feeds)
  // When its settings event is indexed (sim_ss.unsettled_feeds; else the world's start): before,
  // the contract reads secondsPerEpoch 0 and has no events.
  int64_t settle_s = 0;
  std::string tx_id;             // the contract's creation transaction
  Wei sub_price = 0;             // price of one 24 h subscription
  uint64_t key = 0;              // stable hash of pair/timeframe/source
  int64_t first_slot = 0;        // the first slot that can have events
  std::vector<int> predictoors;  // indices of the predictoors that predict this feed
};

enum class ClaimStyle { kImmediate, kPeriodic, kNever };

struct Predictoor {
  std::string address;
  double accuracy = 0.5;
  double participation = 1;  // chance to predict a slot of one of its feeds
  Wei stake_base = 0;
  bool round_stakes = false;  // stakes whole tokens
  double offset_frac = 0;     // when in the epoch it submits
  ClaimStyle claim = ClaimStyle::kPeriodic;
  int64_t claim_period = 0;  // periodic claimers
  int64_t claim_phase = 0;
  bool claim_losers = true;  // also claims (zero) payouts of wrong predictions
};

struct Prediction {
  int predictoor = 0;
  int64_t ts = 0;      // of its latest submission
  Wei stake = 0;       // of its latest submission (what the slot's totals and payouts use)
  bool value = false;  // predicted "up"
  // Re-submitted later within the epoch with a new stake (sim_ss.resubmitted_predictions): the
  // first submission's time and stake. The subgraph overwrites the entity, so an observer whose
  // head is in [first_ts, ts) sees the first version, later ones only the latest.
  bool resubmitted = false;
  int64_t first_ts = 0;
  Wei first_stake = 0;

  // The version an observer with every event before `cut` sees; nullopt before the first one.
  std::optional<Prediction> VisibleBefore(int64_t cut) const {
    if (resubmitted && ts >= cut) {
      if (first_ts >= cut) return std::nullopt;
      Prediction first = *this;
      first.ts = first_ts;
      first.stake = first_stake;
      return first;
    }
    if (ts >= cut) return std::nullopt;
    return *this;
  }
};

enum class SlotStatus { kPending, kPaying, kCanceled };
const char* SlotStatusName(SlotStatus status);

struct SlotState {
  bool exists = false;
  SlotStatus status = SlotStatus::kPending;
  bool has_trueval = false;
  Wei revenue = 0;
  Wei round_sum_up = 0;  // 0 until the trueval reveals it
  Wei round_sum = 0;
};

// Everything about one slot of one feed, independent of the head.
struct SlotInfo {
  int feed = 0;
  int64_t slot = 0;
  int64_t epoch = 0;
  bool canceled = false;
  bool truevalue = false;  // meaningful when !canceled
  int64_t trueval_ts = 0;  // when !canceled
  int64_t cancel_ts = 0;   // slot + epoch + timeout: when a canceled slot turns Canceled
  std::vector<Prediction> predictions;  // ascending predictoor index
  Wei total_stake = 0;
  Wei up_stake = 0;
  std::vector<std::pair<int64_t, Wei>>
      revenue_parts;               // (subscription time, amount), ascending time
  Wei revenue = 0;                 // final revenue
  int64_t created_ts = INT64_MAX;  // first event touching the slot; MAX if none

  int64_t ResolveTs() const { return canceled ? cancel_ts : trueval_ts; }
  const Prediction* Find(int predictoor) const;
  // The slot as seen by an observer that has every event with timestamp < cut.
  SlotState StateBefore(int64_t cut) const;
  // The payout of `p` by the Predictoor rule: refund when canceled, pro-rata share of stakes plus
  // revenue when right, 0 when wrong.
  Wei PayoutAmount(const Prediction& p) const;
};

struct Subscription {
  int feed = 0;
  int64_t ts = 0;
  int buyer = 0;
  uint64_t tx = 0;
  int event_index = 0;
};

struct Payout {
  int feed = 0;
  int64_t slot = 0;
  int predictoor = 0;
  int64_t ts = 0;
  uint64_t tx = 0;
};

class SlotCache;

class World {
 public:
  // Builds the world. `start_ms` is the resolved SimConfig.start. Returns kConfig for a timeframe
  // that is not N s|m|h|d dividing a day, an empty pair list, or fewer than 1 predictoor.
  static Result<std::shared_ptr<const World>> Create(const config::SimConfig& config,
                                                     int64_t start_ms);

  int64_t start_s() const { return start_s_; }
  const std::vector<Feed>& feeds() const { return feeds_; }
  const std::vector<Predictoor>& predictoors() const { return predictoors_; }
  const std::vector<std::string>& buyers() const { return buyers_; }
  // Index of the feed with this contract address, or -1.
  int FeedByContract(const std::string& contract) const;
  // Index of the predictoor with this address, or -1.
  int PredictoorByAddress(const std::string& address) const;

  // Plausible block number for a timestamp (seconds): one block per 6 s.
  static int64_t BlockAt(int64_t ts);
  // "0x" + 64 hex digits.
  static std::string TxHash(uint64_t tx);
  static void AppendTxHash(std::string& out, uint64_t tx);

  // Primitives (pure functions of the configuration).
  bool ValidSlot(int feed, int64_t slot) const;
  bool Participates(int feed, int64_t slot, int predictoor) const;
  std::optional<Prediction> MakePrediction(int feed, int64_t slot, int predictoor) const;
  uint64_t PredictionTx(int feed, int64_t slot, int predictoor) const;
  uint64_t TruevalTx(int feed, int64_t slot) const;
  SlotInfo ComputeSlot(int feed, int64_t slot) const;
  // When `predictoor` claims its payout for `slot` and in which transaction; nullopt if never.
  std::optional<Payout> PayoutOf(const SlotInfo& slot, int predictoor) const;
  // Subscriptions of `feed` with ts in [3600*hour, 3600*(hour+1)), appended in no particular order.
  void SubscriptionsInHour(int feed, int64_t hour, std::vector<Subscription>& out) const;

  // Events with timestamp in [from, to), appended in no particular order.
  // As seen with every event before `cut` (a re-submitted prediction appears once, in the version
  // visible then, at that version's time).
  void PredictionsIn(int feed, int64_t from, int64_t to,
                     std::vector<std::pair<int64_t, Prediction>>& out,
                     int64_t cut = INT64_MAX) const;  // (slot, prediction)
  void TruevalsIn(int feed, int64_t from, int64_t to,
                  std::vector<std::pair<int64_t, int64_t>>& out) const;  // (slot, timestamp)
  void SubscriptionsIn(int feed, int64_t from, int64_t to, std::vector<Subscription>& out) const;
  // Payouts of the feeds where feed_mask[f] is true (all when empty).
  void PayoutsIn(int64_t from, int64_t to, const std::vector<bool>& feed_mask, SlotCache& cache,
                 std::vector<Payout>& out) const;

  // The simulated exchange (docs/ohlcv.md). Candles of a feed open every epoch; the closes of the
  // candles opening at s - 2E and s - E compare as the trueval of slot s says (Predictoor's
  // definition; never equal), except for the slots TruevalIsWrong picks.
  // sim_ss.wrong_truevals: the on-chain trueval of this slot is wrong (the exchange moved the other
  // way).
  bool TruevalIsWrong(int feed, int64_t slot) const;
  // The feed whose pair is `symbol` ("BTCUSDT") with timeframe `interval`, or -1.
  int FeedBySymbol(const std::string& symbol, const std::string& interval) const;
  // The close, in cents, of the candle of `feed` opening at `open_s`.
  int64_t CandleCloseCents(int feed, int64_t open_s) const;
  // Candles opening in [from_ms, to_ms] (inclusive, as Binance reads endTime), at most `limit`,
  // appended in open-time order.
  void CandlesIn(int feed, int64_t from_ms, int64_t to_ms, int limit,
                 std::vector<exchange::Candle>& out) const;

 private:
  World() = default;
  int64_t ClaimTime(const Predictoor& p, int predictoor, int64_t k) const;

  uint64_t seed_ = 0;
  double resubmit_share_ = 0;
  double wrong_trueval_share_ = 0;
  int64_t start_s_ = 0;
  std::vector<Feed> feeds_;
  std::vector<Predictoor> predictoors_;
  std::vector<std::string> buyers_;
  std::unordered_map<std::string, int> feed_by_contract_;
  std::unordered_map<std::string, int> predictoor_by_address_;
};

// A request-local memo of ComputeSlot. Not thread-safe. References returned by Get stay valid until
// Trim.
class SlotCache {
 public:
  explicit SlotCache(const World& world) : world_(world) {}
  const SlotInfo& Get(int feed, int64_t slot);
  // Drops everything when the cache holds more than `max_entries`.
  void Trim(size_t max_entries = 50'000);

 private:
  struct KeyHash {
    size_t operator()(const std::pair<int, int64_t>& k) const;
  };
  const World& world_;
  std::unordered_map<std::pair<int, int64_t>, std::unique_ptr<SlotInfo>, KeyHash> map_;
};

// Splits "5m" / "1h" / "30s" / "1d" into seconds; nullopt when malformed.
std::optional<int64_t> ParseTimeframe(const std::string& timeframe);

// floor(a / b) and ceil(a / b) for b > 0, without overflow for any a.
inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); }
inline int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 && a > 0 ? 1 : 0); }

}  // namespace predlake::sim
