#include "source/sim/world.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "source/sim/hash.hpp"

namespace predlake::sim {
namespace {

// Purposes keep the hash streams of different decisions independent.
enum Purpose : uint64_t {
  kContractAddr = 1,
  kTokenAddr,
  kNftAddr,
  kContractTx,
  kSubPrice,
  kUserAddr,
  kBuyerAddr,
  kAccuracy,
  kParticipation,
  kMembershipRate,
  kMember,
  kStakeBase,
  kStakeStyle,
  kOffset,
  kClaimStyle,
  kClaimPeriod,
  kClaimPhase,
  kClaimLosers,
  kClaimJitter,
  kClaimTx,
  kParticipate,
  kPredTs,
  kPredStake,
  kPredStakeFrac,
  kCorrect,
  kPredTx,
  kTrueValue,
  kCancel,
  kTruevalDelay,
  kTruevalTx,
  kClaimSkip,
  kImmediateDelay,
  kImmediateTx,
  kSubCount,
  kSubTs,
  kSubBuyer,
  kSubTx,
  kSubEvent,
  kBulkTs,
  kBulkFeed,
  kBulkTx,
  kNftless,
  kUnsettled,
  kSettleDelay,
  kResubmit,
  kResubmitTs,
  kResubmitStake,
  kWrongTrueval,
  kCandleBase,
  kCandleWick,
  kCandleVolume,
};

constexpr double kCancelRate = 0.02;
constexpr double kClaimSkipRate = 0.02;
constexpr int kNumBuyers = 5;
constexpr int64_t kBlockEpoch = 1'577'836'800;  // 2020-01-01

const char kHex[] = "0123456789abcdef";

std::string Address(uint64_t seed, uint64_t purpose, uint64_t key) {
  std::string s = "0x";
  for (int i = 0; i < 3; ++i) {
    uint64_t h = Hash(seed, purpose, key, static_cast<uint64_t>(i));
    const int digits = i < 2 ? 16 : 8;
    for (int d = 0; d < digits; ++d) s.push_back(kHex[(h >> (60 - 4 * d)) & 0xf]);
  }
  return s;
}

// Whole tokens, from a small integer table so that no libm result can differ between machines.
Wei StakeBase(uint64_t h) {
  static const int kBases[] = {5, 10, 20, 50, 100, 150, 200, 300, 500, 800, 1000, 2000};
  const int base = kBases[h % (sizeof(kBases) / sizeof(kBases[0]))];
  return static_cast<Wei>(base) * kWeiPerToken;
}

}  // namespace

const char* SlotStatusName(SlotStatus status) {
  switch (status) {
    case SlotStatus::kPending:
      return "Pending";
    case SlotStatus::kPaying:
      return "Paying";
    case SlotStatus::kCanceled:
      return "Canceled";
  }
  return "Pending";
}

std::optional<int64_t> ParseTimeframe(const std::string& timeframe) {
  if (timeframe.size() < 2 || timeframe.size() > 8) return std::nullopt;
  int64_t n = 0;
  for (size_t i = 0; i + 1 < timeframe.size(); ++i) {
    if (timeframe[i] < '0' || timeframe[i] > '9') return std::nullopt;
    n = n * 10 + (timeframe[i] - '0');
  }
  switch (timeframe.back()) {
    case 's':
      break;
    case 'm':
      n *= 60;
      break;
    case 'h':
      n *= 3600;
      break;
    case 'd':
      n *= kDay;
      break;
    default:
      return std::nullopt;
  }
  if (n <= 0) return std::nullopt;
  return n;
}

const Prediction* SlotInfo::Find(int predictoor) const {
  auto it = std::lower_bound(predictions.begin(), predictions.end(), predictoor,
                             [](const Prediction& p, int value) { return p.predictoor < value; });
  if (it == predictions.end() || it->predictoor != predictoor) return nullptr;
  return &*it;
}

SlotState SlotInfo::StateBefore(int64_t cut) const {
  SlotState st;
  st.exists = created_ts < cut;
  if (!st.exists) return st;
  for (const auto& [ts, amount] : revenue_parts) {
    if (ts < cut) st.revenue += amount;
  }
  if (!canceled && trueval_ts < cut) {
    st.status = SlotStatus::kPaying;
    st.has_trueval = true;
    st.round_sum = total_stake;
    st.round_sum_up = up_stake;
    return st;
  }
  if (canceled && cancel_ts < cut) st.status = SlotStatus::kCanceled;
  for (const Prediction& p : predictions) {
    if (p.ts < cut) st.round_sum += p.stake;
  }
  return st;
}

Wei SlotInfo::PayoutAmount(const Prediction& p) const {
  if (canceled) return p.stake;
  if (p.value != truevalue) return 0;
  const Wei correct_sum = truevalue ? up_stake : total_stake - up_stake;
  return MulDiv(p.stake, total_stake + revenue, correct_sum);
}

Result<std::shared_ptr<const World>> World::Create(const config::SimConfig& config,
                                                   int64_t start_ms) {
  if (config.pairs.empty()) return Status::Config("sim_ss: pairs must not be empty");
  if (config.timeframes.empty()) return Status::Config("sim_ss: timeframes must not be empty");
  if (config.num_predictoors < 1 || config.num_predictoors > 100'000) {
    return Status::Config("sim_ss: num_predictoors must be between 1 and 100000");
  }
  std::shared_ptr<World> w(new World());
  w->seed_ = config.seed;
  w->resubmit_share_ = config.resubmitted_predictions;
  w->wrong_trueval_share_ = config.wrong_truevals;
  w->start_s_ = CeilDiv(start_ms, 1000);
  const uint64_t seed = config.seed;

  for (size_t pi = 0; pi < config.pairs.size(); ++pi) {
    for (size_t ti = 0; ti < config.timeframes.size(); ++ti) {
      const std::string& tf = config.timeframes[ti];
      std::optional<int64_t> epoch = ParseTimeframe(tf);
      if (!epoch || *epoch < 60 || kDay % *epoch != 0) {
        return Status::Config("sim_ss: timeframe '" + tf +
                              "' is not a duration like 5m or 1h that divides a day");
      }
      Feed f;
      f.index = static_cast<int>(w->feeds_.size());
      f.pair = config.pairs[pi];
      f.timeframe = tf;
      f.source = config.source;
      f.epoch = *epoch;
      f.timeout = std::clamp<int64_t>(6 * f.epoch, 1800, 7200);
      f.key = HashString(f.pair + "|" + f.timeframe + "|" + f.source);
      f.contract = Address(seed, kContractAddr, f.key);
      f.token = Address(seed, kTokenAddr, f.key);
      f.nft = Address(seed, kNftAddr, f.key);
      f.tx_id = TxHash(Hash(seed, kContractTx, f.key));
      f.sub_price = static_cast<Wei>(2 + Hash(seed, kSubPrice, f.key) % 40) * kWeiPerToken +
                    Hash(seed, kSubPrice, f.key, 1) % kWeiPerToken;
      f.first_slot = CeilDiv(w->start_s_, f.epoch) * f.epoch + f.epoch;
      f.nft_null =
          config.nftless_feeds > 0 && Unit(Hash(seed, kNftless, f.key)) < config.nftless_feeds;
      f.settle_s = w->start_s_;
      if (config.unsettled_feeds > 0 &&
          Unit(Hash(seed, kUnsettled, f.key)) < config.unsettled_feeds) {
        // Its settings event is indexed 1-4 hours after the world starts; until then the contract
        // reads secondsPerEpoch 0 and can have no events (the contract reverts every call).
        f.settle_s =
            w->start_s_ + 3600 + static_cast<int64_t>(Hash(seed, kSettleDelay, f.key) % (3 * 3600));
        f.first_slot = std::max(f.first_slot, CeilDiv(f.settle_s, f.epoch) * f.epoch + f.epoch);
      }
      if (w->feed_by_contract_.count(f.contract)) {
        return Status::Config("sim_ss: feed " + f.pair + " " + tf + " is listed twice");
      }
      w->feed_by_contract_[f.contract] = f.index;
      w->feeds_.push_back(std::move(f));
    }
  }

  static const int64_t kPeriods[] = {3600, 2 * 3600, 6 * 3600, 12 * 3600, kDay, 2 * kDay};
  for (int i = 0; i < config.num_predictoors; ++i) {
    const uint64_t k = static_cast<uint64_t>(i);
    Predictoor p;
    p.address = Address(seed, kUserAddr, k);
    p.accuracy = 0.47 + 0.15 * Unit(Hash(seed, kAccuracy, k));
    p.participation = 0.55 + 0.45 * Unit(Hash(seed, kParticipation, k));
    p.stake_base = StakeBase(Hash(seed, kStakeBase, k));
    p.round_stakes = Unit(Hash(seed, kStakeStyle, k)) < 0.3;
    p.offset_frac = 0.9 * Unit(Hash(seed, kOffset, k));
    const double style = Unit(Hash(seed, kClaimStyle, k));
    p.claim = style < 0.25 ? ClaimStyle::kImmediate
                           : (style < 0.92 ? ClaimStyle::kPeriodic : ClaimStyle::kNever);
    p.claim_period = kPeriods[Hash(seed, kClaimPeriod, k) % 6];
    p.claim_phase = static_cast<int64_t>(Hash(seed, kClaimPhase, k) % p.claim_period);
    p.claim_losers = Unit(Hash(seed, kClaimLosers, k)) < 0.8;
    const double membership = 0.25 + 0.6 * Unit(Hash(seed, kMembershipRate, k));
    for (Feed& f : w->feeds_) {
      if (Unit(Hash(seed, kMember, k, f.key)) < membership) f.predictoors.push_back(i);
    }
    w->predictoor_by_address_[p.address] = i;
    w->predictoors_.push_back(std::move(p));
  }
  for (int b = 0; b < kNumBuyers; ++b) {
    w->buyers_.push_back(Address(seed, kBuyerAddr, static_cast<uint64_t>(b)));
  }
  return std::shared_ptr<const World>(std::move(w));
}

int World::FeedByContract(const std::string& contract) const {
  auto it = feed_by_contract_.find(contract);
  return it == feed_by_contract_.end() ? -1 : it->second;
}

int World::PredictoorByAddress(const std::string& address) const {
  auto it = predictoor_by_address_.find(address);
  return it == predictoor_by_address_.end() ? -1 : it->second;
}

int64_t World::BlockAt(int64_t ts) { return ts <= kBlockEpoch ? 1 : 1 + (ts - kBlockEpoch) / 6; }

void World::AppendTxHash(std::string& out, uint64_t tx) {
  out += "0x";
  for (uint64_t i = 0; i < 4; ++i) {
    const uint64_t h = Hash(tx, i);
    for (int d = 0; d < 16; ++d) out.push_back(kHex[(h >> (60 - 4 * d)) & 0xf]);
  }
}

std::string World::TxHash(uint64_t tx) {
  std::string s;
  AppendTxHash(s, tx);
  return s;
}

bool World::ValidSlot(int feed, int64_t slot) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  return slot >= f.first_slot && slot % f.epoch == 0;
}

std::optional<Prediction> World::MakePrediction(int feed, int64_t slot, int predictoor) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  const Predictoor& pp = predictoors_[static_cast<size_t>(predictoor)];
  const uint64_t k = static_cast<uint64_t>(predictoor);
  const uint64_t s = static_cast<uint64_t>(slot);
  if (!Participates(feed, slot, predictoor)) return std::nullopt;
  Prediction p;
  p.predictoor = predictoor;
  const int64_t jitter_span = std::max<int64_t>(1, f.epoch / 20);
  const int64_t offset =
      static_cast<int64_t>(pp.offset_frac * static_cast<double>(f.epoch)) +
      static_cast<int64_t>(Hash(seed_, kPredTs, f.key, s, k) % static_cast<uint64_t>(jitter_span));
  p.ts = slot - f.epoch + std::min(offset, f.epoch - 1);
  const uint64_t hs = Hash(seed_, kPredStake, f.key, s, k);
  Wei stake = pp.stake_base / 1000 * (800 + hs % 401);
  if (pp.round_stakes) {
    stake = std::max<Wei>(kWeiPerToken, stake / kWeiPerToken * kWeiPerToken);
  } else {
    stake += Hash(seed_, kPredStakeFrac, f.key, s, k) % kWeiPerToken;
  }
  p.stake = stake;
  if (resubmit_share_ > 0 && slot - p.ts >= 2 &&
      Unit(Hash(seed_, kResubmit, f.key, s, k)) < resubmit_share_) {
    // A new stake later within the epoch, before the slot starts (the contract allows changes
    // until then); the round's totals follow the new stake.
    p.resubmitted = true;
    p.first_ts = p.ts;
    p.first_stake = stake;
    p.ts += 1 + static_cast<int64_t>(Hash(seed_, kResubmitTs, f.key, s, k) %
                                     static_cast<uint64_t>(slot - p.ts - 1));
    p.stake = std::max<Wei>(
        1, stake / 100 * static_cast<Wei>(50 + Hash(seed_, kResubmitStake, f.key, s, k) % 101));
  }
  const bool truth = (Hash(seed_, kTrueValue, f.key, s) & 1) != 0;
  const bool correct = Unit(Hash(seed_, kCorrect, f.key, s, k)) < pp.accuracy;
  p.value = correct ? truth : !truth;
  return p;
}

bool World::Participates(int feed, int64_t slot, int predictoor) const {
  return Unit(Hash(seed_, kParticipate, feeds_[static_cast<size_t>(feed)].key,
                   static_cast<uint64_t>(slot), static_cast<uint64_t>(predictoor))) <
         predictoors_[static_cast<size_t>(predictoor)].participation;
}

uint64_t World::PredictionTx(int feed, int64_t slot, int predictoor) const {
  return Hash(seed_, kPredTx, feeds_[static_cast<size_t>(feed)].key, static_cast<uint64_t>(slot),
              static_cast<uint64_t>(predictoor));
}

uint64_t World::TruevalTx(int feed, int64_t slot) const {
  return Hash(seed_, kTruevalTx, feeds_[static_cast<size_t>(feed)].key,
              static_cast<uint64_t>(slot));
}

SlotInfo World::ComputeSlot(int feed, int64_t slot) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  SlotInfo info;
  info.feed = feed;
  info.slot = slot;
  info.epoch = f.epoch;
  if (!ValidSlot(feed, slot)) return info;
  const uint64_t s = static_cast<uint64_t>(slot);
  info.canceled = Unit(Hash(seed_, kCancel, f.key, s)) < kCancelRate;
  info.truevalue = (Hash(seed_, kTrueValue, f.key, s) & 1) != 0;
  info.trueval_ts =
      slot + f.epoch + kMinTruevalDelay +
      static_cast<int64_t>(Hash(seed_, kTruevalDelay, f.key, s) %
                           static_cast<uint64_t>(kMaxTruevalDelay - kMinTruevalDelay + 1));
  info.cancel_ts = slot + f.epoch + f.timeout;
  for (int p : f.predictoors) {
    std::optional<Prediction> pred = MakePrediction(feed, slot, p);
    if (!pred) continue;
    info.total_stake += pred->stake;
    if (pred->value) info.up_stake += pred->stake;
    info.created_ts = std::min(info.created_ts, pred->resubmitted ? pred->first_ts : pred->ts);
    info.predictions.push_back(*pred);
  }
  const int64_t slots_per_sub = kDay / f.epoch;
  const Wei per_slot = f.sub_price / static_cast<Wei>(slots_per_sub);
  std::vector<Subscription> subs;
  for (int64_t h = FloorDiv(slot - kDay, 3600); h <= FloorDiv(slot - 1, 3600); ++h) {
    SubscriptionsInHour(feed, h, subs);
  }
  for (const Subscription& sub : subs) {
    if (sub.ts < slot - kDay || sub.ts >= slot) continue;
    info.revenue_parts.emplace_back(sub.ts, per_slot);
    info.revenue += per_slot;
    info.created_ts = std::min(info.created_ts, sub.ts);
  }
  std::sort(info.revenue_parts.begin(), info.revenue_parts.end());
  if (!info.canceled) info.created_ts = std::min(info.created_ts, info.trueval_ts);
  return info;
}

int64_t World::ClaimTime(const Predictoor& p, int predictoor, int64_t k) const {
  const uint64_t jitter =
      Hash(seed_, kClaimJitter, static_cast<uint64_t>(predictoor), static_cast<uint64_t>(k)) %
      static_cast<uint64_t>(p.claim_period / 2);
  return p.claim_phase + k * p.claim_period + static_cast<int64_t>(jitter);
}

std::optional<Payout> World::PayoutOf(const SlotInfo& slot, int predictoor) const {
  const Predictoor& pp = predictoors_[static_cast<size_t>(predictoor)];
  if (pp.claim == ClaimStyle::kNever) return std::nullopt;
  const Prediction* pred = slot.Find(predictoor);
  if (pred == nullptr) return std::nullopt;
  const Feed& f = feeds_[static_cast<size_t>(slot.feed)];
  const uint64_t s = static_cast<uint64_t>(slot.slot);
  const uint64_t k = static_cast<uint64_t>(predictoor);
  if (Unit(Hash(seed_, kClaimSkip, f.key, s, k)) < kClaimSkipRate) return std::nullopt;
  if (!pp.claim_losers && !slot.canceled && pred->value != slot.truevalue) return std::nullopt;
  const int64_t resolved = slot.ResolveTs();
  Payout out;
  out.feed = slot.feed;
  out.slot = slot.slot;
  out.predictoor = predictoor;
  if (pp.claim == ClaimStyle::kImmediate) {
    out.ts = resolved + 2 +
             static_cast<int64_t>(Hash(seed_, kImmediateDelay, f.key, s, k) %
                                  static_cast<uint64_t>(kMaxImmediateClaimDelay - 1));
    out.tx = Hash(seed_, kImmediateTx, f.key, s, k);
    return out;
  }
  // The batch claim k pays what resolved in [claim k-1, claim k); claim k lies in
  // [phase + k*period, phase + k*period + period/2), so the first claim after `resolved` is k0 or
  // k0+1.
  int64_t claim_k = FloorDiv(resolved - pp.claim_phase, pp.claim_period);
  if (ClaimTime(pp, predictoor, claim_k) <= resolved) ++claim_k;
  out.ts = ClaimTime(pp, predictoor, claim_k);
  out.tx = Hash(seed_, kClaimTx, k, static_cast<uint64_t>(claim_k));
  return out;
}

void World::SubscriptionsInHour(int feed, int64_t hour, std::vector<Subscription>& out) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  const int64_t base = hour * 3600;
  if (base + 3600 <= start_s_) return;
  const uint64_t h = static_cast<uint64_t>(hour);
  const double u = Unit(Hash(seed_, kSubCount, f.key, h));
  const int count = u < 0.55 ? 0 : (u < 0.85 ? 1 : (u < 0.97 ? 2 : 3));
  for (int j = 0; j < count; ++j) {
    const uint64_t jj = static_cast<uint64_t>(j);
    Subscription sub;
    sub.feed = feed;
    sub.ts = base + static_cast<int64_t>(Hash(seed_, kSubTs, f.key, h, jj) % 3600);
    if (sub.ts < start_s_ || sub.ts < f.settle_s) continue;
    sub.buyer = 1 + static_cast<int>(Hash(seed_, kSubBuyer, f.key, h, jj) % (kNumBuyers - 1));
    sub.tx = Hash(seed_, kSubTx, f.key, h, jj);
    sub.event_index = static_cast<int>(Hash(seed_, kSubEvent, f.key, h, jj) % 300);
    out.push_back(sub);
  }
  // One bulk buyer purchases most feeds once a day in a single transaction.
  const int64_t day = FloorDiv(base, kDay);
  const uint64_t d = static_cast<uint64_t>(day);
  const int64_t bulk_ts = day * kDay + static_cast<int64_t>(Hash(seed_, kBulkTs, d) % kDay);
  if (FloorDiv(bulk_ts, 3600) == hour && bulk_ts >= start_s_ && bulk_ts >= f.settle_s &&
      Unit(Hash(seed_, kBulkFeed, d, f.key)) < 0.7) {
    Subscription sub;
    sub.feed = feed;
    sub.ts = bulk_ts;
    sub.buyer = 0;
    sub.tx = Hash(seed_, kBulkTx, d);
    sub.event_index = 10 + 3 * feed;
    out.push_back(sub);
  }
}

void World::PredictionsIn(int feed, int64_t from, int64_t to,
                          std::vector<std::pair<int64_t, Prediction>>& out, int64_t cut) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  // A prediction for slot s lies in [s - epoch, s): s in (from, to + epoch).
  int64_t first = std::max(f.first_slot, (FloorDiv(from, f.epoch) + 1) * f.epoch);
  for (int64_t slot = first; slot < to + f.epoch; slot += f.epoch) {
    for (int p : f.predictoors) {
      std::optional<Prediction> made = MakePrediction(feed, slot, p);
      if (!made) continue;
      std::optional<Prediction> pred = made->VisibleBefore(cut);
      if (pred && pred->ts >= from && pred->ts < to) out.emplace_back(slot, *pred);
    }
  }
}

void World::TruevalsIn(int feed, int64_t from, int64_t to,
                       std::vector<std::pair<int64_t, int64_t>>& out) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  const int64_t lo = from - f.epoch - kMaxTruevalDelay;
  int64_t first = std::max(f.first_slot, CeilDiv(lo, f.epoch) * f.epoch);
  for (int64_t slot = first; slot + f.epoch + kMinTruevalDelay < to; slot += f.epoch) {
    const uint64_t s = static_cast<uint64_t>(slot);
    if (Unit(Hash(seed_, kCancel, f.key, s)) < kCancelRate) continue;
    const int64_t ts =
        slot + f.epoch + kMinTruevalDelay +
        static_cast<int64_t>(Hash(seed_, kTruevalDelay, f.key, s) %
                             static_cast<uint64_t>(kMaxTruevalDelay - kMinTruevalDelay + 1));
    if (ts >= from && ts < to) out.emplace_back(slot, ts);
  }
}

void World::SubscriptionsIn(int feed, int64_t from, int64_t to,
                            std::vector<Subscription>& out) const {
  if (to <= from) return;
  std::vector<Subscription> hour_subs;
  for (int64_t h = FloorDiv(from, 3600); h <= FloorDiv(to - 1, 3600); ++h) {
    hour_subs.clear();
    SubscriptionsInHour(feed, h, hour_subs);
    for (const Subscription& s : hour_subs) {
      if (s.ts >= from && s.ts < to) out.push_back(s);
    }
  }
}

void World::PayoutsIn(int64_t from, int64_t to, const std::vector<bool>& feed_mask,
                      SlotCache& cache, std::vector<Payout>& out) const {
  if (to <= from) return;
  for (size_t fi = 0; fi < feeds_.size(); ++fi) {
    if (!feed_mask.empty() && !feed_mask[fi]) continue;
    const Feed& f = feeds_[fi];
    const int feed = static_cast<int>(fi);
    const int64_t resolve_span = f.epoch + std::max(f.timeout, kMaxTruevalDelay);
    for (int p : f.predictoors) {
      const Predictoor& pp = predictoors_[static_cast<size_t>(p)];
      // Resolution times whose payout can land in [from, to).
      int64_t r_lo = 0, r_hi = 0;
      if (pp.claim == ClaimStyle::kNever) continue;
      if (pp.claim == ClaimStyle::kImmediate) {
        r_lo = from - kMaxImmediateClaimDelay;
        r_hi = to;
      } else {
        int64_t k = FloorDiv(from - pp.claim_phase, pp.claim_period);
        if (ClaimTime(pp, p, k) < from) ++k;
        const int64_t first_claim = ClaimTime(pp, p, k);
        if (first_claim >= to) continue;
        r_lo = ClaimTime(pp, p, k - 1);
        r_hi = to;
      }
      const int64_t s_first =
          std::max(f.first_slot, CeilDiv(r_lo - resolve_span, f.epoch) * f.epoch);
      for (int64_t slot = s_first; slot + f.epoch < r_hi; slot += f.epoch) {
        // Cheap participation test before the slot is computed.
        if (!Participates(feed, slot, p)) continue;
        const SlotInfo& info = cache.Get(feed, slot);
        std::optional<Payout> pay = PayoutOf(info, p);
        if (pay && pay->ts >= from && pay->ts < to) out.push_back(*pay);
      }
    }
  }
}

size_t SlotCache::KeyHash::operator()(const std::pair<int, int64_t>& k) const {
  return static_cast<size_t>(Hash(static_cast<uint64_t>(k.first), static_cast<uint64_t>(k.second)));
}

const SlotInfo& SlotCache::Get(int feed, int64_t slot) {
  auto [it, inserted] = map_.try_emplace({feed, slot});
  if (inserted) it->second = std::make_unique<SlotInfo>(world_.ComputeSlot(feed, slot));
  return *it->second;
}

void SlotCache::Trim(size_t max_entries) {
  if (map_.size() > max_entries) map_.clear();
}

bool World::TruevalIsWrong(int feed, int64_t slot) const {
  if (wrong_trueval_share_ <= 0) return false;
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  return Unit(Hash(seed_, kWrongTrueval, f.key, static_cast<uint64_t>(slot))) <
         wrong_trueval_share_;
}

int World::FeedBySymbol(const std::string& symbol, const std::string& interval) const {
  for (const Feed& f : feeds_) {
    std::string compact;
    for (char c : f.pair) {
      if (c != '/' && c != '-')
        compact += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    if (compact == symbol && f.timeframe == interval) return f.index;
  }
  return -1;
}

namespace {

// The move of the candle opening at `open_s` against the one before it: the exchange's answer to
// the slot open_s + E (Predictoor compares the closes of the candles opening at s - 2E and s - E),
// which is the slot's on-chain trueval unless that is made wrong on purpose.
bool CandleMovesUp(const World& w, const Feed& f, uint64_t seed, int64_t open_s) {
  const int64_t slot = open_s + f.epoch;
  const bool truevalue = (Hash(seed, kTrueValue, f.key, static_cast<uint64_t>(slot)) & 1) != 0;
  return truevalue != w.TruevalIsWrong(f.index, slot);
}

std::string Cents(int64_t cents) {
  std::string frac = std::to_string(cents % 100);
  if (frac.size() < 2) frac = "0" + frac;
  return std::to_string(cents / 100) + "." + frac;
}

}  // namespace

int64_t World::CandleCloseCents(int feed, int64_t open_s) const {
  // base + step * (+run or -run), where run counts the candles of the same direction ending here:
  // a rise after a fall lands above base, a fall after a rise below it, and within a run the price
  // keeps moving the same way, so every close compares with the one before as CandleMovesUp says.
  // The scan back is as long as the run (2 on average); it is capped far beyond any real run.
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  const int64_t base = 100'000 + static_cast<int64_t>(Hash(seed_, kCandleBase, f.key) % 10'000'000);
  const int64_t step = 1 + base / 2000;
  const bool up = CandleMovesUp(*this, f, seed_, open_s);
  int64_t run = 1;
  while (run < 150 && CandleMovesUp(*this, f, seed_, open_s - run * f.epoch) == up) ++run;
  return up ? base + step * run : base - step * run;
}

void World::CandlesIn(int feed, int64_t from_ms, int64_t to_ms, int limit,
                      std::vector<exchange::Candle>& out) const {
  const Feed& f = feeds_[static_cast<size_t>(feed)];
  const int64_t e_ms = f.epoch * 1000;
  for (int64_t t = CeilDiv(from_ms, e_ms) * e_ms;
       t <= to_ms && static_cast<int>(out.size()) < limit; t += e_ms) {
    const int64_t open_s = t / 1000;
    const int64_t close = CandleCloseCents(feed, open_s);
    const int64_t open = CandleCloseCents(feed, open_s - f.epoch);
    const int64_t wick =
        1 + static_cast<int64_t>(Hash(seed_, kCandleWick, f.key, static_cast<uint64_t>(open_s)) %
                                 static_cast<uint64_t>(1 + close / 4000));
    exchange::Candle c;
    c.open_ms = t;
    c.open = Cents(open);
    c.close = Cents(close);
    c.high = Cents(std::max(open, close) + wick);
    c.low = Cents(std::max<int64_t>(0, std::min(open, close) - wick));
    c.volume = Cents(static_cast<int64_t>(
        Hash(seed_, kCandleVolume, f.key, static_cast<uint64_t>(open_s)) % 100'000'000));
    out.push_back(std::move(c));
  }
}

}  // namespace predlake::sim
