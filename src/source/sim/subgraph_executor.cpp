#include "source/sim/subgraph_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "lake/tables.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/subgraph_filter.hpp"
#include "source/sim/subgraph_schema.hpp"
#include "source/sim/wei.hpp"

namespace predlake::sim::subgraph {
namespace {

// ---- Rows: one entity instance, identified by its keys. ----

struct Row {
  int64_t key = 0;  // the order key: event timestamp, or slot for slots
  std::string id;
  int feed = 0;
  int64_t slot = 0;
  int user = -1;  // predictoor (predictions, payouts) or buyer (subscriptions)
  uint64_t tx = 0;
  // Subscriptions: the event index. User rows: 1 when `user` is a buyer. NftData rows: which key.
  int event_index = 0;
};

std::string SlotId(const World& w, int feed, int64_t slot) {
  return w.feeds()[static_cast<size_t>(feed)].contract + "-" + std::to_string(slot);
}

std::string UserSlotId(const World& w, int feed, int64_t slot, int user) {
  std::string id = SlotId(w, feed, slot);
  id += '-';
  id += w.predictoors()[static_cast<size_t>(user)].address;
  return id;
}

std::string SubscriptionId(const World& w, int feed, uint64_t tx, int event_index) {
  std::string id = w.feeds()[static_cast<size_t>(feed)].contract;
  id += '-';
  World::AppendTxHash(id, tx);
  id += '-';
  id += std::to_string(event_index);
  return id;
}

// ---- Execution ----

struct Bounds {
  int64_t lo = std::numeric_limits<int64_t>::min();  // on the order key (ts, or slot for slots)
  int64_t hi = std::numeric_limits<int64_t>::max();  // exclusive
  std::vector<bool> feeds;                           // empty: all
  bool empty = false;
};

class Executor {
 public:
  Executor(const World& world, int64_t head_ms, bool null_head_timestamp, size_t max_response_bytes)
      : w_(world),
        cache_(world),
        head_s_(FloorDiv(head_ms, 1000)),
        cut_(head_s_ + 1),
        null_head_timestamp_(null_head_timestamp),
        max_response_bytes_(max_response_bytes) {}

  Result<std::string> Run(graphql::Document& doc) {
    if (doc.selections.size() > kMaxRootFields) {
      return GqlError(
          fmt::format("The query has {} root fields (aliases included); the limit is {}",
                      doc.selections.size(), kMaxRootFields));
    }
    const size_t fields = CountFields(doc.selections);
    if (fields > kMaxFields) {
      return GqlError(fmt::format("The query has {} fields; the limit is {}", fields, kMaxFields));
    }
    RETURN_IF_ERROR(Validate(Type::kQuery, doc.selections, true));
    std::vector<Query> queries(doc.selections.size());
    for (size_t i = 0; i < doc.selections.size(); ++i) {
      const Field& f = doc.selections[i];
      if (f.resolved < 0) continue;
      const FieldDef& def = Fields(Type::kQuery)[static_cast<size_t>(f.resolved)];
      std::optional<int64_t> min_block;
      if (def.code == F::kMeta) {
        for (const auto& [name, value] : f.arguments) {
          if (name != "block") {
            return GqlError(
                fmt::format("Unknown argument `{}` on field `Query._meta`", name.substr(0, 80)));
          }
          ASSIGN_OR_RETURN(min_block, CompileBlockArgument(value));
        }
      } else {
        ASSIGN_OR_RETURN(queries[i], CompileQuery(def, f));
        min_block = queries[i].min_block;
      }
      // graph-node answers `number_gte` at its latest block, once it has got that far.
      const int64_t indexed = World::BlockAt(head_s_);
      if (min_block && *min_block > indexed) {
        return GqlError(fmt::format(
            "Failed to decode `block.number_gte` value: `subgraph predlake-sim has only indexed "
            "up to block number {} and data for block number {} is therefore not yet available`",
            indexed, *min_block));
      }
    }
    out_ = "{\"data\":{";
    for (size_t i = 0; i < doc.selections.size(); ++i) {
      const Field& f = doc.selections[i];
      if (i > 0) out_ += ',';
      Key(f.alias);
      if (f.resolved == -2) {
        out_ += "\"Query\"";
        continue;
      }
      const FieldDef& def = Fields(Type::kQuery)[static_cast<size_t>(f.resolved)];
      if (def.code == F::kMeta) {
        WriteMeta(f.selections);
        continue;
      }
      std::vector<Row> rows = Collect(queries[i]);
      out_ += '[';
      for (size_t r = 0; r < rows.size() && !TooLarge(); ++r) {
        if (r > 0) out_ += ',';
        WriteObject(def.target, rows[r], f.selections);
      }
      out_ += ']';
      cache_.Trim();
      if (TooLarge()) {
        return GqlError(fmt::format(
            "The response would be larger than {} MB; ask for fewer rows, fields or aliases",
            max_response_bytes_ >> 20));
      }
    }
    out_ += "}}";
    return std::move(out_);
  }

 private:
  // ---- bounds ----

  void RestrictFeeds(Bounds& b, const std::vector<int>& feeds) {
    std::vector<bool> mask(w_.feeds().size(), false);
    for (int f : feeds) {
      if (f >= 0) mask[static_cast<size_t>(f)] = true;
    }
    if (b.feeds.empty()) {
      b.feeds = std::move(mask);
    } else {
      for (size_t i = 0; i < mask.size(); ++i) b.feeds[i] = b.feeds[i] && mask[i];
    }
  }

  int FeedOfId(const std::string& id) {
    return id.size() >= 42 ? w_.FeedByContract(id.substr(0, 42)) : -1;
  }

  // Narrows `b` with the conjuncts of `f` that constrain the order key or the feed; everything else
  // is checked row by row, so these bounds only need to be conservative.
  void Narrow(const Filter& f, Type top, Bounds& b, bool key_level) {
    for (const Filter& c : f.children) {
      if (c.kind == Filter::Kind::kAnd) {
        Narrow(c, top, b, key_level);
      } else if (c.kind == Filter::Kind::kNested) {
        const bool to_feed =
            c.type == Type::kSlot || c.type == Type::kPrediction || c.type == Type::kContract;
        if (to_feed) Narrow(c.children[0], c.type, b, false);
      } else if (c.kind == Filter::Kind::kCmp) {
        const bool is_key = key_level && ((c.code == F::kTimestamp && top != Type::kSlot) ||
                                          (c.code == F::kSlot && top == Type::kSlot));
        if (is_key) {
          const int64_t v = c.values.empty() ? 0 : c.values[0].i;
          switch (c.op) {
            case Op::kEq:
              b.lo = std::max(b.lo, v);
              b.hi = std::min(b.hi, v == std::numeric_limits<int64_t>::max() ? v : v + 1);
              break;
            case Op::kGt:
              b.lo = std::max(b.lo, v == std::numeric_limits<int64_t>::max() ? v : v + 1);
              if (v == std::numeric_limits<int64_t>::max()) b.empty = true;
              break;
            case Op::kGte:
              b.lo = std::max(b.lo, v);
              break;
            case Op::kLt:
              b.hi = std::min(b.hi, v);
              break;
            case Op::kLte:
              b.hi = std::min(b.hi, v == std::numeric_limits<int64_t>::max() ? v : v + 1);
              break;
            case Op::kIn: {
              if (c.values.empty()) {
                b.empty = true;
                break;
              }
              int64_t mn = c.values[0].i, mx = c.values[0].i;
              for (const Scalar& s : c.values) {
                mn = std::min(mn, s.i);
                mx = std::max(mx, s.i);
              }
              b.lo = std::max(b.lo, mn);
              b.hi = std::min(b.hi, mx == std::numeric_limits<int64_t>::max() ? mx : mx + 1);
              break;
            }
            default:
              break;
          }
        }
        const bool contract_field =
            (c.code == F::kPredictContract) || (c.type == Type::kContract && c.code == F::kId);
        const bool keyed_id = c.code == F::kId ||
                              (c.code == F::kSlot && c.vtype == VType::kString) ||
                              c.code == F::kPrediction;
        if ((contract_field || keyed_id) && (c.op == Op::kEq || c.op == Op::kIn)) {
          std::vector<int> feeds;
          for (const Scalar& s : c.values) feeds.push_back(FeedOfId(s.s));
          RestrictFeeds(b, feeds);
        }
      }
    }
  }

  // ---- generation ----

  void Generate(Type type, int64_t from, int64_t to, const std::vector<bool>& mask,
                std::vector<Row>& out) {
    const auto& feeds = w_.feeds();
    auto wanted = [&](size_t f) { return mask.empty() || mask[f]; };
    switch (type) {
      case Type::kPrediction: {
        std::vector<std::pair<int64_t, Prediction>> preds;
        for (size_t f = 0; f < feeds.size(); ++f) {
          if (!wanted(f)) continue;
          preds.clear();
          w_.PredictionsIn(static_cast<int>(f), from, to, preds, cut_);
          for (const auto& [slot, p] : preds) {
            Row r;
            r.key = p.ts;
            r.feed = static_cast<int>(f);
            r.slot = slot;
            r.user = p.predictoor;
            r.id = UserSlotId(w_, r.feed, slot, p.predictoor);
            out.push_back(std::move(r));
          }
        }
        break;
      }
      case Type::kTrueval: {
        std::vector<std::pair<int64_t, int64_t>> tvs;
        for (size_t f = 0; f < feeds.size(); ++f) {
          if (!wanted(f)) continue;
          tvs.clear();
          w_.TruevalsIn(static_cast<int>(f), from, to, tvs);
          for (const auto& [slot, ts] : tvs) {
            Row r;
            r.key = ts;
            r.feed = static_cast<int>(f);
            r.slot = slot;
            r.id = SlotId(w_, r.feed, slot);
            out.push_back(std::move(r));
          }
        }
        break;
      }
      case Type::kPayout: {
        std::vector<Payout> pays;
        w_.PayoutsIn(from, to, mask, cache_, pays);
        for (const Payout& p : pays) {
          Row r;
          r.key = p.ts;
          r.feed = p.feed;
          r.slot = p.slot;
          r.user = p.predictoor;
          r.tx = p.tx;
          r.id = UserSlotId(w_, p.feed, p.slot, p.predictoor);
          out.push_back(std::move(r));
        }
        break;
      }
      case Type::kSubscription: {
        std::vector<Subscription> subs;
        for (size_t f = 0; f < feeds.size(); ++f) {
          if (!wanted(f)) continue;
          subs.clear();
          w_.SubscriptionsIn(static_cast<int>(f), from, to, subs);
          for (const Subscription& s : subs) {
            Row r;
            r.key = s.ts;
            r.feed = s.feed;
            r.user = s.buyer;
            r.tx = s.tx;
            r.event_index = s.event_index;
            r.id = SubscriptionId(w_, s.feed, s.tx, s.event_index);
            out.push_back(std::move(r));
          }
        }
        break;
      }
      case Type::kSlot: {
        for (size_t f = 0; f < feeds.size(); ++f) {
          if (!wanted(f)) continue;
          const Feed& feed = feeds[f];
          int64_t first = std::max(feed.first_slot, CeilDiv(from, feed.epoch) * feed.epoch);
          for (int64_t slot = first; slot < to; slot += feed.epoch) {
            if (!cache_.Get(static_cast<int>(f), slot).StateBefore(cut_).exists) continue;
            Row r;
            r.key = slot;
            r.feed = static_cast<int>(f);
            r.slot = slot;
            r.id = SlotId(w_, r.feed, slot);
            out.push_back(std::move(r));
          }
        }
        break;
      }
      case Type::kContract: {
        if (w_.start_s() >= cut_ || from > w_.start_s() || to <= w_.start_s()) break;
        for (size_t f = 0; f < feeds.size(); ++f) {
          if (!wanted(f)) continue;
          Row r;
          r.key = w_.start_s();
          r.feed = static_cast<int>(f);
          r.id = feeds[f].contract;
          out.push_back(std::move(r));
        }
        break;
      }
      default:
        break;
    }
  }

  std::vector<Row> Collect(const Query& q) {
    std::vector<Row> result;
    const size_t need = static_cast<size_t>(q.first) + static_cast<size_t>(q.skip);
    if (q.first == 0) return result;
    Bounds b;
    Narrow(q.where, q.type, b, true);
    if (b.empty) return result;
    if (!b.feeds.empty() &&
        std::none_of(b.feeds.begin(), b.feeds.end(), [](bool x) { return x; })) {
      return result;
    }
    // The visible range of the order key.
    int64_t lo = w_.start_s(), hi = cut_;
    int64_t chunk = 1800;
    switch (q.type) {
      case Type::kSlot: {
        int64_t max_epoch = 0, min_first = std::numeric_limits<int64_t>::max();
        for (const Feed& f : w_.feeds()) {
          max_epoch = std::max(max_epoch, f.epoch);
          min_first = std::min(min_first, f.first_slot);
        }
        lo = min_first;
        hi = cut_ + kDay + max_epoch;  // subscriptions create slots up to a day ahead
        chunk = 6 * 3600;
        break;
      }
      case Type::kTrueval:
      case Type::kSubscription:
        chunk = 6 * 3600;
        break;
      case Type::kPayout:
        chunk = 3600;
        break;
      default:
        break;
    }
    lo = std::max(lo, b.lo);
    hi = std::min(hi, b.hi);
    if (lo >= hi) return result;
    // Dense entities yield about one row per feed-second; small pages need only a short first
    // chunk.
    if (q.type == Type::kPrediction || q.type == Type::kPayout) {
      chunk = std::clamp<int64_t>(static_cast<int64_t>(need) * 2, 300, chunk);
    }

    const bool by_key = q.order != OrderBy::kId;
    const bool desc = q.desc;
    auto less = [&](const Row& a, const Row& c) {
      if (by_key && a.key != c.key) return desc ? a.key > c.key : a.key < c.key;
      if (!by_key && desc) return a.id > c.id;
      return a.id < c.id;
    };
    std::vector<Row> batch;
    int64_t done_lo = lo, done_hi = hi;  // the part of [lo, hi) not yet generated
    while (done_lo < done_hi) {
      int64_t a, e;
      const int64_t span = std::min<int64_t>(chunk, done_hi - done_lo);
      if (by_key && desc) {
        e = done_hi;
        a = done_hi - span;
        done_hi = a;
      } else {
        a = done_lo;
        e = done_lo + span;
        done_lo = e;
      }
      batch.clear();
      Generate(q.type, a, e, b.feeds, batch);
      size_t kept = 0;
      for (Row& r : batch) {
        if (Matches(q.where, r, q.type)) {
          result.push_back(std::move(r));
          ++kept;
        }
      }
      if (by_key) {
        std::sort(result.end() - static_cast<std::ptrdiff_t>(kept), result.end(), less);
        if (result.size() >= need) break;
      } else if (result.size() > 2 * need + 4096) {
        std::nth_element(result.begin(), result.begin() + static_cast<std::ptrdiff_t>(need),
                         result.end(), less);
        result.resize(need);
      }
      if (kept < need / 2) chunk = std::min<int64_t>(chunk * 2, 7 * kDay);
      cache_.Trim();
    }
    if (!by_key) std::sort(result.begin(), result.end(), less);
    if (result.size() > need) result.resize(need);
    if (static_cast<size_t>(q.skip) >= result.size()) return {};
    result.erase(result.begin(), result.begin() + q.skip);
    return result;
  }

  // ---- filter evaluation ----

  // The row for the entity a nested filter or field refers to.
  Row Related(Type to, const Row& r) {
    Row n;
    n.feed = r.feed;
    n.slot = r.slot;
    n.user = r.user;
    switch (to) {
      case Type::kSlot:
        n.key = r.slot;
        n.id = SlotId(w_, r.feed, r.slot);
        break;
      case Type::kPrediction: {
        const Prediction* p = cache_.Get(r.feed, r.slot).Find(r.user);
        n.key = p ? p->ts : 0;
        n.id = UserSlotId(w_, r.feed, r.slot, r.user);
        break;
      }
      case Type::kContract:
        n.key = w_.start_s();
        n.id = w_.feeds()[static_cast<size_t>(r.feed)].contract;
        break;
      default:
        break;
    }
    return n;
  }

  // The value of an Int or Boolean filter field of row `r`.
  int64_t AttrInt(F code, const Row& r) {
    const Feed& feed = w_.feeds()[static_cast<size_t>(r.feed)];
    switch (code) {
      case F::kTimestamp:
        return r.key;
      case F::kBlock:
        return World::BlockAt(r.key);
      case F::kSlot:
        return r.slot;
      case F::kExpireTime:
        return r.key + kDay;
      case F::kSecondsPerEpoch:
        return feed.epoch;
      case F::kTruevalSubmitTimeout:
        return feed.timeout;
      case F::kTrueValue: {
        const SlotInfo& info = cache_.Get(r.feed, r.slot);
        return !info.canceled && info.truevalue;
      }
      case F::kPredictedValue: {
        const Prediction* p = cache_.Get(r.feed, r.slot).Find(r.user);
        return p != nullptr && p->value;
      }
      default:
        return 0;
    }
  }

  std::string AttrString(Type t, F code, const Row& r) {
    const Feed& feed = w_.feeds()[static_cast<size_t>(r.feed)];
    switch (code) {
      case F::kId:
        return r.id;
      case F::kTxId:
        return World::TxHash(TxOf(t, r));
      case F::kUser:
        return t == Type::kSubscription ? w_.buyers()[static_cast<size_t>(r.user)]
                                        : w_.predictoors()[static_cast<size_t>(r.user)].address;
      case F::kSlot:
        return SlotId(w_, r.feed, r.slot);
      case F::kPrediction:
        return UserSlotId(w_, r.feed, r.slot, r.user);
      case F::kPredictContract:
        return feed.contract;
      case F::kStatus:
        return SlotStatusName(cache_.Get(r.feed, r.slot).StateBefore(cut_).status);
      default:
        return "";
    }
  }

  bool Matches(const Filter& f, const Row& r, Type type) {
    switch (f.kind) {
      case Filter::Kind::kAnd:
        for (const Filter& c : f.children) {
          if (!Matches(c, r, type)) return false;
        }
        return true;
      case Filter::Kind::kOr:
        for (const Filter& c : f.children) {
          if (Matches(c, r, type)) return true;
        }
        return false;
      case Filter::Kind::kNested: {
        Row n = Related(f.type, r);
        return Matches(f.children[0], n, f.type);
      }
      case Filter::Kind::kCmp:
        break;
    }
    if (f.vtype == VType::kInt || f.vtype == VType::kBool) {
      const int64_t v = AttrInt(f.code, r);
      auto value = [&](const Scalar& s) { return f.vtype == VType::kBool ? int64_t{s.b} : s.i; };
      switch (f.op) {
        case Op::kEq:
          return v == value(f.values[0]);
        case Op::kNot:
          return v != value(f.values[0]);
        case Op::kGt:
          return v > value(f.values[0]);
        case Op::kGte:
          return v >= value(f.values[0]);
        case Op::kLt:
          return v < value(f.values[0]);
        case Op::kLte:
          return v <= value(f.values[0]);
        case Op::kIn:
        case Op::kNotIn: {
          bool found = false;
          for (const Scalar& s : f.values) found = found || v == value(s);
          return (f.op == Op::kIn) == found;
        }
      }
      return false;
    }
    const std::string v = AttrString(type, f.code, r);
    switch (f.op) {
      case Op::kEq:
        return v == f.values[0].s;
      case Op::kNot:
        return v != f.values[0].s;
      case Op::kGt:
        return v > f.values[0].s;
      case Op::kGte:
        return v >= f.values[0].s;
      case Op::kLt:
        return v < f.values[0].s;
      case Op::kLte:
        return v <= f.values[0].s;
      case Op::kIn:
      case Op::kNotIn: {
        bool found = false;
        for (const Scalar& s : f.values) found = found || v == s.s;
        return (f.op == Op::kIn) == found;
      }
    }
    return false;
  }

  uint64_t TxOf(Type t, const Row& r) {
    switch (t) {
      case Type::kPrediction: {
        const Prediction* p = cache_.Get(r.feed, r.slot).Find(r.user);
        // A re-submission is its own transaction.
        const bool latest = p != nullptr && p->resubmitted && p->ts < cut_;
        return w_.PredictionTx(r.feed, r.slot, r.user) ^ (latest ? 0x5e5e5e5eULL : 0);
      }
      case Type::kTrueval:
        return w_.TruevalTx(r.feed, r.slot);
      case Type::kPayout:
        return r.tx;
      case Type::kSubscription:
        return r.tx;
      default:
        return r.tx;
    }
  }

  // ---- output ----

  void Key(const std::string& name) {
    out_ += '"';
    out_ += name;  // GraphQL names need no escaping
    out_ += "\":";
  }
  void Str(const std::string& s) {
    out_ += '"';
    for (char c : s) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (u < 0x20) {
        out_ += fmt::format("\\u{:04x}", u);
      } else {
        out_ += c;
      }
    }
    out_ += '"';
  }
  void Int(int64_t v) { fmt::format_to(std::back_inserter(out_), "{}", v); }
  void Bool(bool v) { out_ += v ? "true" : "false"; }
  void Amount(Wei v) {
    out_ += '"';
    AppendWei(out_, v);
    out_ += '"';
  }
  void TxStr(uint64_t tx) {
    out_ += '"';
    World::AppendTxHash(out_, tx);
    out_ += '"';
  }
  static std::string HexOf(const std::string& s) {
    static const char kHex[] = "0123456789abcdef";
    std::string h = "0x";
    for (char c : s) {
      h += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      h += kHex[static_cast<unsigned char>(c) & 0xf];
    }
    return h;
  }

  void WriteMeta(const std::vector<Field>& sel) {
    out_ += '{';
    for (size_t i = 0; i < sel.size(); ++i) {
      const Field& f = sel[i];
      if (i > 0) out_ += ',';
      Key(f.alias);
      if (f.resolved == -2) {
        out_ += "\"_Meta_\"";
        continue;
      }
      switch (Fields(Type::kMeta)[static_cast<size_t>(f.resolved)].code) {
        case F::kBlock: {
          out_ += '{';
          for (size_t j = 0; j < f.selections.size(); ++j) {
            const Field& g = f.selections[j];
            if (j > 0) out_ += ',';
            Key(g.alias);
            if (g.resolved == -2) {
              out_ += "\"_Block_\"";
              continue;
            }
            switch (Fields(Type::kBlock)[static_cast<size_t>(g.resolved)].code) {
              case F::kNumber:
                Int(World::BlockAt(head_s_));
                break;
              case F::kTimestamp:
                if (null_head_timestamp_) {
                  out_ += "null";
                } else {
                  Int(head_s_);
                }
                break;
              default:
                TxStr(static_cast<uint64_t>(World::BlockAt(head_s_)));
                break;
            }
          }
          out_ += '}';
          break;
        }
        case F::kDeployment:
          Str("predlake-sim");
          break;
        default:
          Bool(false);
          break;
      }
    }
    out_ += '}';
  }

  static size_t CountFields(const std::vector<Field>& sel) {
    size_t n = sel.size();
    for (const Field& f : sel) n += CountFields(f.selections);
    return n;
  }

  bool TooLarge() const { return out_.size() > max_response_bytes_; }

  void WriteObject(Type t, const Row& r, const std::vector<Field>& sel) {
    out_ += '{';
    if (TooLarge()) {  // abandoned: Run answers with an error
      out_ += '}';
      return;
    }
    for (size_t i = 0; i < sel.size(); ++i) {
      const Field& f = sel[i];
      if (i > 0) out_ += ',';
      Key(f.alias);
      if (f.resolved == -2) {
        Str(TypeName(t));
        continue;
      }
      const FieldDef& def = Fields(t)[static_cast<size_t>(f.resolved)];
      WriteField(t, def, r, f);
    }
    out_ += '}';
  }

  void WriteField(Type t, const FieldDef& def, const Row& r, const Field& f) {
    const Feed& feed = w_.feeds()[static_cast<size_t>(r.feed)];
    switch (def.code) {
      case F::kId:
        switch (t) {
          case Type::kUser:
            Str(t == Type::kUser && r.event_index == 1
                    ? w_.buyers()[static_cast<size_t>(r.user)]
                    : w_.predictoors()[static_cast<size_t>(r.user)].address);
            return;
          case Type::kToken:
            Str(feed.token);
            return;
          case Type::kNft:
            Str(feed.nft);
            return;
          default:
            Str(r.id);
            return;
        }
      case F::kTimestamp:
        Int(r.key);
        return;
      case F::kBlock:
        Int(World::BlockAt(r.key));
        return;
      case F::kTxId:
        if (t == Type::kContract) {
          Str(feed.tx_id);
        } else {
          TxStr(TxOf(t, r));
        }
        return;
      case F::kUser: {
        Row u;
        u.feed = r.feed;
        u.user = r.user;
        u.event_index = t == Type::kSubscription ? 1 : 0;
        WriteObject(Type::kUser, u, f.selections);
        return;
      }
      case F::kStake: {
        const Prediction* p = cache_.Get(r.feed, r.slot).Find(r.user);
        // The entity holds its latest submission before the head.
        std::optional<Prediction> seen = p ? p->VisibleBefore(cut_) : std::nullopt;
        Amount(seen ? seen->stake : (p ? p->stake : 0));
        return;
      }
      case F::kPayout: {
        const SlotInfo& info = cache_.Get(r.feed, r.slot);
        const Prediction* p = info.Find(r.user);
        if (t == Type::kPayout) {
          Amount(p ? info.PayoutAmount(*p) : 0);
          return;
        }
        std::optional<Payout> pay = w_.PayoutOf(info, r.user);
        if (!pay || pay->ts >= cut_) {
          out_ += "null";
          return;
        }
        Row pr;
        pr.key = pay->ts;
        pr.feed = r.feed;
        pr.slot = r.slot;
        pr.user = r.user;
        pr.tx = pay->tx;
        pr.id = r.id;
        WriteObject(Type::kPayout, pr, f.selections);
        return;
      }
      case F::kSlot:
        if (def.kind == Kind::kScalar) {
          Int(r.slot);
        } else {
          WriteObject(Type::kSlot, Related(Type::kSlot, r), f.selections);
        }
        return;
      case F::kTrueValue: {
        // Boolean! on the real subgraph: a refund (canceled slot) carries the contract's
        // default, false, because its true value was never written.
        const SlotInfo& info = cache_.Get(r.feed, r.slot);
        Bool(!info.canceled && info.truevalue);
        return;
      }
      case F::kPredictedValue: {
        const Prediction* p = cache_.Get(r.feed, r.slot).Find(r.user);
        Bool(p != nullptr && p->value);
        return;
      }
      case F::kPrediction:
        WriteObject(Type::kPrediction, Related(Type::kPrediction, r), f.selections);
        return;
      case F::kExpireTime:
        Int(r.key + kDay);
        return;
      case F::kEventIndex:
        Int(r.event_index);
        return;
      case F::kPredictContract:
        WriteObject(Type::kContract, Related(Type::kContract, r), f.selections);
        return;
      case F::kStatus:
        Str(SlotStatusName(cache_.Get(r.feed, r.slot).StateBefore(cut_).status));
        return;
      case F::kRevenue:
        Amount(cache_.Get(r.feed, r.slot).StateBefore(cut_).revenue);
        return;
      case F::kRoundSumStakesUp:
        Amount(cache_.Get(r.feed, r.slot).StateBefore(cut_).round_sum_up);
        return;
      case F::kRoundSumStakes:
        Amount(cache_.Get(r.feed, r.slot).StateBefore(cut_).round_sum);
        return;
      case F::kTrueValues: {
        const SlotInfo& info = cache_.Get(r.feed, r.slot);
        out_ += '[';
        if (!info.canceled && info.trueval_ts < cut_) {
          Row tv;
          tv.key = info.trueval_ts;
          tv.feed = r.feed;
          tv.slot = r.slot;
          tv.id = SlotId(w_, r.feed, r.slot);
          WriteObject(Type::kTrueval, tv, f.selections);
        }
        out_ += ']';
        return;
      }
      case F::kSecondsPerEpoch:
        // The mapping creates the contract with zeros; its SettingChanged sets them.
        Int(feed.settle_s >= cut_ ? 0 : feed.epoch);
        return;
      case F::kTruevalSubmitTimeout:
        Int(feed.settle_s >= cut_ ? 0 : feed.timeout);
        return;
      case F::kToken:
      case F::kNft:
        if (def.code == F::kNft && feed.nft_null) {
          // A token made outside the factory's TokenCreated handler: the subgraph never sets nft.
          out_ += "null";
          return;
        }
        WriteObject(def.code == F::kToken ? Type::kToken : Type::kNft, r, f.selections);
        return;
      case F::kName:
      case F::kSymbol:
        Str(feed.pair);
        return;
      case F::kLastPriceValue:
        Amount(feed.sub_price);
        return;
      case F::kNftData: {
        out_ += '[';
        for (int k = 0; k < 3; ++k) {
          if (k > 0) out_ += ',';
          Row d = r;
          d.event_index = k;
          WriteObject(Type::kNftData, d, f.selections);
        }
        out_ += ']';
        return;
      }
      case F::kKey:
        Str(std::string(lake::kNftDataKeys[r.event_index]));
        return;
      case F::kValue:
        Str(HexOf(r.event_index == 0 ? feed.pair
                                     : (r.event_index == 1 ? feed.timeframe : feed.source)));
        return;
      default:
        out_ += "null";
        return;
    }
  }

  const World& w_;
  SlotCache cache_;
  int64_t head_s_;
  int64_t cut_;  // events with timestamp < cut_ are visible
  bool null_head_timestamp_ = false;
  size_t max_response_bytes_;
  std::string out_;
};

}  // namespace

Result<std::string> ExecuteDocument(const World& world, int64_t head_ms, graphql::Document& doc,
                                    bool null_head_timestamp, size_t max_response_bytes) {
  Executor ex(world, head_ms, null_head_timestamp, max_response_bytes);
  return ex.Run(doc);
}

}  // namespace predlake::sim::subgraph
