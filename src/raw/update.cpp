#include "raw/update.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "common/backoff.hpp"
#include "common/time.hpp"
#include "raw/contracts.hpp"
#include "raw/fetch.hpp"
#include "raw/head.hpp"
#include "raw/store.hpp"

namespace predlake::raw {
namespace {

// The forward fetch stores the pages that arrive within this window in one transaction (at most
// UpdateOptions::max_pages_per_commit of them).
constexpr auto kRawCommitWindow = std::chrono::seconds(2);

// A page (or the error that ended a table's fetch) on its way from a fetcher to the writer.
struct Item {
  size_t work = 0;
  std::optional<Page> page;
  Status error;
};

// Bounded multi-producer, single-consumer queue. Fetchers block while it is full, so that
// fetching runs at most a few pages ahead of storing.
class PageQueue {
 public:
  PageQueue(size_t capacity, int producers) : capacity_(capacity), producers_(producers) {}

  // Returns false (dropping the item) once Stop was called.
  bool Push(Item item) {
    std::unique_lock<std::mutex> lock(mu_);
    space_.wait(lock, [&] { return stopped_ || items_.size() < capacity_; });
    if (stopped_) return false;
    items_.push_back(std::move(item));
    ready_.notify_one();
    return true;
  }

  void ProducerDone() {
    std::lock_guard<std::mutex> lock(mu_);
    --producers_;
    ready_.notify_one();
  }

  // Waits up to `wait` for items and takes up to `max` of them. `finished` is set when no item is
  // left and none will come.
  std::vector<Item> Pop(size_t max, std::chrono::milliseconds wait, bool& finished) {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait_for(lock, wait, [&] { return !items_.empty() || producers_ == 0; });
    std::vector<Item> out;
    while (!items_.empty() && out.size() < max) {
      out.push_back(std::move(items_.front()));
      items_.pop_front();
    }
    finished = items_.empty() && producers_ == 0;
    space_.notify_all();
    return out;
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    space_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable space_, ready_;
  std::deque<Item> items_;
  size_t capacity_;
  int producers_;
  bool stopped_ = false;
};

// One table's share of the run.
struct Work {
  const FetchSpec* spec = nullptr;
  TableReport report;
  bool recorded = false;     // the table had a watermark before the run
  int64_t start_ms = 0;      // the watermark's start
  int64_t watermark_ms = 0;  // committed so far
};

std::string ShortName(std::string_view table) {
  return std::string(table.substr(table.rfind('_') + 1));
}

std::string Count(int64_t n) {
  if (n < 10'000) return std::to_string(n);
  if (n < 10'000'000) return std::to_string(n / 1000) + "k";
  return std::to_string(n / 1'000'000) + "M";
}

void ShowProgress(Progress* progress, const std::vector<Work>& work) {
  if (progress == nullptr || !progress->enabled()) return;
  std::string line = "raw update:";
  for (const Work& w : work) {
    const TableReport& r = w.report;
    int64_t span = r.end_ms - r.from_ms;
    int64_t pct =
        span <= 0 ? 100 : std::clamp<int64_t>((w.watermark_ms - r.from_ms) * 100 / span, 0, 100);
    line += ' ';
    line += ShortName(r.table);
    line += ' ';
    line += std::to_string(pct);
    line += "% ";
    line += Count(r.counts.rows_in);
  }
  progress->Update(line);
}

nlohmann::ordered_json RetriesJson(const std::map<std::string, int64_t>& retries) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [kind, n] : retries) out[kind] = n;
  return out;
}

// {table: {from_ms, to_ms, chunks}} of the tables backfilled (started or done), or an empty object.
nlohmann::ordered_json BackfillJson(const std::vector<Work>& work) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Work& w : work) {
    if (!w.report.backfill_from_ms) continue;
    out[w.report.table] = {{"from_ms", *w.report.backfill_from_ms},
                           {"to_ms", w.report.before.start_ms},
                           {"chunks", w.report.backfill_chunks},
                           {"start_ms", w.start_ms}};
  }
  return out;
}

// Puts what the run did so far on `run`: the window, per-table counts and the detail (under "raw"
// when the fetch is a step of a larger run).
void Record(lake::Run& run, const std::vector<Work>& work, const UpdateReport& report,
            bool finishes_run) {
  std::optional<int64_t> window_start;
  for (const Work& w : work) {
    run.tables()[w.report.table] = w.report.counts;
    int64_t from = w.report.from_ms;
    if (w.report.backfill_from_ms) from = std::min(from, *w.report.backfill_from_ms);
    window_start = window_start ? std::min(*window_start, from) : from;
  }
  run.SetWindow(window_start, work.empty() ? std::nullopt : std::optional<int64_t>(report.end_ms));
  nlohmann::ordered_json detail = {
      {"head_ms", report.head_ms}, {"end_ms", report.end_ms}, {"contracts", report.contracts}};
  if (!report.deployment.empty()) {
    detail["head_block"] = report.head_block;
    detail["deployment"] = report.deployment;
    detail["has_indexing_errors"] = report.has_indexing_errors;
    if (report.previous_deployment) detail["deployment_changed_from"] = *report.previous_deployment;
  }
  std::map<std::string, int64_t> retries = report.head_retries_by_kind;
  int64_t smaller_pages = 0;
  for (const Work& w : work) {
    for (const auto& [kind, n] : w.report.retries_by_kind) retries[kind] += n;
    smaller_pages += w.report.smaller_pages;
  }
  if (report.ohlcv.streams > 0) {
    for (const auto& [kind, n] : report.ohlcv.retries_by_kind) retries["exchange_" + kind] += n;
    run.tables()[std::string(lake::kOhlcvTable.name)] = report.ohlcv.counts;
    detail["ohlcv"] = {{"streams", report.ohlcv.streams},
                       {"pages", report.ohlcv.pages},
                       {"requests", report.ohlcv.requests},
                       {"retries", report.ohlcv.retries},
                       {"corrected", report.ohlcv.counts.rows_updated},
                       {"gaps_recorded", report.ohlcv.gaps_recorded}};
    if (report.ohlcv.server_time_ms) {
      detail["ohlcv"]["server_time_ms"] = *report.ohlcv.server_time_ms;
    }
    if (!report.ohlcv.failures.empty()) {
      nlohmann::ordered_json failures = nlohmann::ordered_json::array();
      for (const OhlcvStreamFailure& f : report.ohlcv.failures) {
        failures.push_back({{"stream", f.stream}, {"error", f.error}, {"set_aside", f.set_aside}});
      }
      detail["ohlcv"]["failures"] = std::move(failures);
    }
    if (report.ohlcv.blocked_until_ms) {
      detail["ohlcv"]["blocked_until_ms"] = *report.ohlcv.blocked_until_ms;
    }
  }
  detail["retries"] = RetriesJson(retries);
  if (!report.warnings.empty()) detail["warnings"] = report.warnings;
  detail["smaller_pages"] = smaller_pages;
  if (!report.skipped_contracts.empty()) {
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const UpdateReport::Skipped& c : report.skipped_contracts) {
      skipped.push_back({{"id", c.id}, {"reason", c.reason}});
    }
    detail["skipped_contracts"] = std::move(skipped);
  }
  if (finishes_run) {
    if (nlohmann::ordered_json b = BackfillJson(work); !b.empty())
      detail["backfill"] = std::move(b);
    run.detail() = std::move(detail);
  } else {
    // The run's table counts become the ETL's once it runs; what the fetch did stays here.
    nlohmann::ordered_json tables = nlohmann::ordered_json::object();
    for (const Work& w : work) {
      tables[w.report.table] = {{"rows_in", w.report.counts.rows_in},
                                {"rows_out", w.report.counts.rows_out},
                                {"rows_updated", w.report.counts.rows_updated},
                                {"retries", w.report.retries}};
    }
    if (report.ohlcv.streams > 0) {
      tables[std::string(lake::kOhlcvTable.name)] = {
          {"rows_in", report.ohlcv.counts.rows_in},
          {"rows_out", report.ohlcv.counts.rows_out},
          {"rows_updated", report.ohlcv.counts.rows_updated},
          {"retries", report.ohlcv.retries}};
    }
    detail["tables"] = std::move(tables);
    if (nlohmann::ordered_json b = BackfillJson(work); !b.empty())
      detail["backfill"] = std::move(b);
    run.detail()["raw"] = std::move(detail);
  }
}

Result<std::unique_ptr<gql::Transport>> MakeTransport(const TransportFactory& factory,
                                                      const TransportUse& use) {
  try {
    std::unique_ptr<gql::Transport> t = factory ? factory(use) : nullptr;
    if (!t) return Status::Internal("the transport factory returned no transport");
    return t;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("creating a transport failed: ") + e.what());
  }
}

// What every query after the head is pinned to: the head's block and deployment (gql::Client's
// set_min_block and set_deployment).
struct HeadPin {
  int64_t block = 0;
  std::string deployment;
};

void PinClient(gql::Client& client, const HeadPin& pin) {
  client.set_min_block(pin.block);
  client.set_deployment(pin.deployment);
}

// What a fetcher thread needs; a copy, so that the writer may change the Work meanwhile.
struct FetchJob {
  const FetchSpec* spec = nullptr;
  std::string table;
  int64_t from_ms = 0;
  int64_t end_ms = 0;
  HeadPin pin;  // every page is pinned to the head's block and deployment
};

// Fetches one table's window into `queue`. Runs on its own thread; never throws. `stats` is
// written at the end, for the caller to read after joining.
void FetchTable(size_t index, FetchJob job, const ContractMap& contracts,
                const UpdateOptions& options, const TransportFactory& factory, int64_t run_id,
                const std::atomic<bool>& stop, PageQueue& queue, gql::ClientStats& stats) {
  const std::string context = job.table + " " + FormatWindow(job.from_ms, job.end_ms);
  Status error;
  try {
    auto transport = MakeTransport(factory, {run_id, static_cast<int>(index) + 1});
    if (!transport.ok()) {
      error = Status(transport.status().code(), context + " " + transport.status().message());
    } else {
      gql::RetryPolicy policy = options.retry;
      if (policy.on_retry) {
        policy.on_retry = [inner = options.retry.on_retry, &context](const gql::RetryNotice& n) {
          const std::string error = context + ": " + std::string(n.error);
          gql::RetryNotice named = n;
          named.error = error;
          inner(named);
        };
      }
      gql::Client client(std::move(transport).value(), policy, options.sleeper);
      client.set_stop_flag(&stop);
      PinClient(client, job.pin);
      Pager pager(*job.spec, contracts, job.from_ms, job.end_ms, options.page_size);
      while (!pager.done() && !stop.load()) {
        auto page = pager.Next(client);
        if (!page.ok()) {
          // A stop request is not this table's failure: the writer reports the real cause.
          if (page.status().code() != StatusCode::kCancelled) {
            error = Status(page.status().code(), context + " " + page.status().message());
          }
          break;
        }
        if (!queue.Push(Item{index, std::move(page).value(), Status::Ok()})) break;
      }
      stats = client.stats();
    }
  } catch (const std::exception& e) {
    error = Status::Internal(context + ": " + e.what());
  }
  if (!error.ok()) queue.Push(Item{index, std::nullopt, error});
  queue.ProducerDone();
}

// Stores the pages of `batch` (none of them an error) in one transaction with the watermarks they
// justify, calling `before_commit` last inside it. On success `work` holds the new state; on
// failure it is unchanged and the transaction rolled back.
Status StoreBatch(lake::Lake& lake, Stager& stager, const std::vector<Item>& batch, int64_t run_id,
                  std::vector<Work>& work,
                  const std::function<Status(const std::vector<Work>&)>& before_commit,
                  const std::function<Status(std::string_view)>& at_step) {
  std::vector<Work> pending = work;
  std::vector<bool> touched(work.size(), false);
  ASSIGN_OR_RETURN(duck::Transaction tx, duck::Transaction::Begin(lake.conn()));
  Status st;
  for (const Item& item : batch) {
    Work& w = pending[item.work];
    const Page& page = *item.page;
    st = stager.Stage(*w.spec->table, page.rows);
    if (!st.ok()) {
      st = st.WithContext(w.report.table + " page " + std::to_string(page.number));
      break;
    }
    touched[item.work] = true;
    w.watermark_ms = std::max(w.watermark_ms, page.watermark_ms);
    w.report.pages += 1;
  }
  // The touched tables' watermarks move in one statement (one each cost 2-3 ms, prepared anew).
  std::vector<std::pair<std::string, lake::Watermark>> marks;
  for (size_t i = 0; i < pending.size() && st.ok(); ++i) {
    if (!touched[i]) continue;
    Work& w = pending[i];
    auto counts = stager.Flush(*w.spec->table);
    if (!counts.ok()) {
      st = counts.status();
      break;
    }
    w.report.counts += *counts;
    w.report.after = {w.start_ms, w.watermark_ms};
    marks.emplace_back(w.report.table, w.report.after);
  }
  if (st.ok() && !marks.empty()) st = lake.SetWatermarks(marks, run_id);
  if (st.ok() && before_commit) st = before_commit(pending);
  if (st.ok() && at_step) st = at_step("fetch_commit");
  if (st.ok()) st = tx.Commit();
  if (!st.ok()) {
    (void)tx.Rollback();
    (void)stager.Clear();
    return st;
  }
  work = std::move(pending);
  return Status::Ok();
}

// Backfills w's table from w.start_ms down to target_ms (see Update), chunk by chunk, each chunk's
// pages staged as they arrive and stored in one transaction with the lowered start. On success
// w.start_ms is target_ms; on failure it is the start of the last chunk stored.
Status BackfillTable(lake::Lake& lake, Stager& stager, Work& w, int64_t target_ms,
                     const ContractMap& contracts, const UpdateOptions& options,
                     const TransportFactory& factory, int64_t run_id, int stream,
                     const HeadPin& pin, Progress* progress) {
  TableReport& r = w.report;
  r.backfill_from_ms = target_ms;
  ASSIGN_OR_RETURN(std::unique_ptr<gql::Transport> transport,
                   MakeTransport(factory, {run_id, stream}));
  gql::Client client(std::move(transport), options.retry, options.sleeper);
  client.set_stop_flag(options.cancel);
  PinClient(client, pin);
  const int64_t chunk = std::max<int64_t>(1, options.chunk_ms);
  const int64_t chunks_total = (w.start_ms - target_ms + chunk - 1) / chunk;
  while (w.start_ms > target_ms) {
    if (options.cancel != nullptr && options.cancel->load()) {
      return Status::Cancelled("raw update interrupted");
    }
    const int64_t to = w.start_ms;
    const int64_t from = std::max(target_ms, to - chunk);
    const std::string context = r.table + " backfill " + FormatWindow(from, to);
    if (progress != nullptr && progress->enabled()) {
      progress->Update("raw backfill " + ShortName(r.table) + ": chunk " +
                       std::to_string(r.backfill_chunks + 1) + "/" + std::to_string(chunks_total) +
                       " " + FormatWindow(from, to));
    }
    Pager pager(*w.spec, contracts, from, to, options.page_size);
    int64_t pages = 0;
    Status st;
    while (st.ok() && !pager.done()) {
      auto page = pager.Next(client);
      if (!page.ok()) {
        st = Status(page.status().code(), context + " " + page.status().message());
        break;
      }
      st = stager.Stage(*w.spec->table, page->rows);
      ++pages;
    }
    lake::TableCounts counts;
    if (st.ok()) {
      auto tx = duck::Transaction::Begin(lake.conn());
      st = tx.status();
      if (st.ok()) {
        auto flushed = stager.Flush(*w.spec->table);
        st = flushed.status();
        if (st.ok()) {
          counts = *flushed;
          st = lake.SetWatermark(r.table, {from, w.watermark_ms}, run_id);
        }
        if (st.ok() && options.at_step) st = options.at_step("backfill_commit");
        if (st.ok()) st = tx->Commit();
        if (!st.ok()) (void)tx->Rollback();
      }
    }
    if (!st.ok()) {
      (void)stager.Clear();
      return st;
    }
    r.counts += counts;
    r.pages += pages;
    r.backfill_chunks += 1;
    w.start_ms = from;
    r.after = {w.start_ms, w.watermark_ms};
  }
  return Status::Ok();
}

// Reads the head, never older than the newest this lake has read (waiting for the node within the
// retry budget), then the contracts at it. The head comes first: every event at or before it
// belongs to a contract that exists by then, so the contract list read afterwards knows all of
// them. Fills the report's head fields; errors name what failed.
Status ReadHeadAndContracts(lake::Lake& lake, const UpdateOptions& options,
                            const TransportFactory& factory, int64_t run_id, UpdateReport& report,
                            ContractMap& contracts) {
  auto transport = MakeTransport(factory, {run_id, 0});
  if (!transport.ok()) return transport.status();
  gql::Client client(std::move(transport).value(), options.retry, options.sleeper);
  client.set_stop_flag(options.cancel);
  auto head = FetchHead(client);
  report.head_retries_by_kind = client.stats().retries_by_kind;
  if (!head.ok()) return head.status().WithContext("reading the indexed head");
  // Never a head older than one this lake has read: a node behind it (a load balancer in front
  // of a lagging replica, a rewound subgraph) would answer with older states of the slots. Wait
  // for it within the retry budget, asking again, or stop without fetching anything.
  auto recorded_block = lake.GetMeta(lake::kMetaHeadBlock);
  if (!recorded_block.ok()) return recorded_block.status();
  int64_t head_behind_waits = 0;
  if (*recorded_block) {
    const int64_t newest = std::stoll(**recorded_block);
    Sleeper& sleeper = options.sleeper != nullptr ? *options.sleeper : DefaultSleeper();
    int64_t waited_ms = 0;
    const int64_t base_ms = std::max<int64_t>(options.retry.base_delay_ms, 1);
    const int64_t max_ms = std::max<int64_t>(options.retry.max_delay_ms, 1);
    // Predictable waits (no jitter): one process asks one node again.
    int64_t wait_ms = Backoff::CeilingMs(base_ms, max_ms, 1);
    while (head->block < newest) {
      if (waited_ms + wait_ms > options.retry.budget_ms) {
        report.head_retries_by_kind["head_behind_lake"] = head_behind_waits;
        return Status::Source(
            "the subgraph's indexed head (block " + std::to_string(head->block) + ", " +
            FormatTime(head->timestamp_ms) + ") is behind the newest head this lake has read " +
            "(block " + std::to_string(newest) + "): a lagging or rewound node; nothing was " +
            "fetched, so that no stored state goes back (waited " + FormatDuration(waited_ms) +
            "; run again later, or point the subgraph URL at a node that has caught up)");
      }
      ++head_behind_waits;
      sleeper.SleepMs(wait_ms, options.cancel);
      if (options.cancel != nullptr && options.cancel->load()) {
        return Status::Cancelled("raw update interrupted");
      }
      waited_ms += wait_ms;
      wait_ms = Backoff::CeilingMs(base_ms, max_ms, head_behind_waits + 1);
      head = FetchHead(client);
      if (!head.ok()) return head.status().WithContext("reading the indexed head");
    }
  }
  report.head_ms = head->timestamp_ms;
  report.head_block = head->block;
  report.deployment = head->deployment;
  report.has_indexing_errors = head->has_indexing_errors;
  report.head_time_from_data = head->time_from_data;
  // Pinned from here on: a node behind the head would answer with older data, another
  // deployment with other data.
  PinClient(client, {head->block, head->deployment});
  auto fetched = FetchContracts(client, options.fallback_source);
  report.head_retries_by_kind = client.stats().retries_by_kind;
  if (head_behind_waits > 0) report.head_retries_by_kind["head_behind_lake"] = head_behind_waits;
  if (!fetched.ok()) return fetched.status();
  contracts = std::move(fetched).value();
  return Status::Ok();
}

// The head's warnings (its time from the data, indexing errors, another deployment than the
// lake's), the contracts counted or skipped, and each table's window: from its watermark (less
// the slots' settling time for the upserted tables) to min(requested end, head).
Status PlanWindows(lake::Lake& lake, const UpdateOptions& options, const ContractMap& contracts,
                   UpdateReport& report, std::vector<Work>& work,
                   std::optional<std::string>& recorded_deployment) {
  if (report.head_time_from_data) {
    report.warnings.push_back(
        "raw update: the subgraph's _meta.block.timestamp stayed null at block " +
        std::to_string(report.head_block) + ": the head's time is its newest event's, " +
        FormatTime(report.head_ms) + " (docs/raw.md)");
  }
  if (report.has_indexing_errors) {
    report.warnings.push_back(
        "the subgraph reports indexing errors (_meta.hasIndexingErrors) at block " +
        std::to_string(report.head_block) +
        ": entities of the failing handlers may be missing until it is fixed");
  }
  {
    auto recorded = lake.GetMeta(lake::kMetaDeployment);
    if (!recorded.ok()) return recorded.status();
    recorded_deployment = *recorded;
    if (*recorded && **recorded != report.deployment) {
      report.previous_deployment = **recorded;
      report.warnings.push_back("the subgraph's deployment changed from " + **recorded + " to " +
                                report.deployment +
                                ": the data may have been re-indexed; rows fetched before come "
                                "from the old deployment");
    }
  }
  for (const auto& [id, c] : contracts) {
    if (c.unusable.empty()) {
      ++report.contracts;
    } else {
      report.skipped_contracts.push_back({id, c.unusable});
    }
  }
  report.end_ms = std::min(options.end_ms, report.head_ms);

  auto marks = lake.Watermarks();
  if (!marks.ok()) return marks.status();
  {
    // The head is not older than the lake's newest (above), yet behind what the tables hold: the
    // head's time went back (a re-indexed deployment). Nothing is fetched past it; say so.
    int64_t highest = 0;
    for (const Work& w : work) {
      auto it = marks->find(w.report.table);
      if (it != marks->end()) highest = std::max(highest, it->second.watermark_ms);
    }
    if (highest > report.head_ms) {
      report.warnings.push_back("raw update: the subgraph's indexed head " +
                                FormatTime(report.head_ms) + " is behind the lake's watermarks (" +
                                FormatTime(highest) +
                                "): nothing newer is fetched until it passes them");
    }
  }
  const int64_t slot_lookback = MaxSlotSettleMs(contracts) + options.slot_margin_ms;
  for (Work& w : work) {
    TableReport& r = w.report;
    auto it = marks->find(r.table);
    if (it != marks->end()) {
      r.before = it->second;
      w.recorded = true;
      w.start_ms = it->second.start_ms;
      w.watermark_ms = it->second.watermark_ms;
    } else {
      w.start_ms = options.start_ms;
      w.watermark_ms = options.start_ms;
    }
    r.from_ms = w.watermark_ms;
    if (w.spec->table->upsert) r.from_ms = std::max(w.start_ms, w.watermark_ms - slot_lookback);
    r.end_ms = report.end_ms;
    // An end before the watermark (an earlier --to, or a head that went back) fetches nothing.
    r.from_ms = std::min(r.from_ms, r.end_ms);
    r.after = {w.start_ms, w.watermark_ms};
  }
  std::optional<int64_t> earliest;
  for (const Work& w : work) {
    if (w.recorded) earliest = earliest ? std::min(*earliest, w.start_ms) : w.start_ms;
  }
  if (options.note_later_start && earliest && options.start_ms > *earliest) {
    report.warnings.push_back("lake_ss.st_timestr " + FormatTime(options.start_ms) +
                              " is after the lake's start " + FormatTime(*earliest) +
                              ": nothing changes (the lake keeps its data from " +
                              FormatTime(*earliest) + "; only an earlier start backfills)");
  }
  return Status::Ok();
}

// Stores the contracts and what the lake keeps of the head (its block and time, the deployment and
// a change of it) in one transaction.
Status RecordHead(lake::Lake& lake, const ContractMap& contracts, const UpdateReport& report,
                  const std::optional<std::string>& recorded_deployment) {
  auto tx = duck::Transaction::Begin(lake.conn());
  if (!tx.ok()) return tx.status();
  Status st = StoreContracts(lake.conn(), contracts);
  if (st.ok() && report.previous_deployment) {
    st = lake.SetMeta(lake::kMetaPreviousDeployment, *report.previous_deployment);
    if (st.ok()) {
      st = lake.SetMeta(lake::kMetaDeploymentChangedAtMs, std::to_string(lake.NowMs()));
    }
  }
  if (st.ok() && recorded_deployment != report.deployment) {
    st = lake.SetMeta(lake::kMetaDeployment, report.deployment);
  }
  if (st.ok()) st = lake.SetMeta(lake::kMetaHeadBlock, std::to_string(report.head_block));
  if (st.ok()) st = lake.SetMeta(lake::kMetaHeadMs, std::to_string(report.head_ms));
  if (st.ok()) st = tx->Commit();
  return st;
}

// Fetches every table's window on its own thread and stores the pages as they come, in
// transactions of up to options.max_pages_per_commit pages or kRawCommitWindow. When the candles
// are not wanted, the last transaction also ends the run (options.finishes_run). Returns the first
// error (a fetcher's, a store's, or kCancelled); the tables' reports hold what was committed.
Status FetchTables(lake::Lake& lake, Stager& stager, lake::Run& run, const UpdateOptions& options,
                   const TransportFactory& factory, const ContractMap& contracts,
                   const HeadPin& head_pin, bool want_ohlcv, UpdateReport& report,
                   std::vector<Work>& work, Progress* progress) {
  std::atomic<bool> stop{false};
  PageQueue queue(static_cast<size_t>(std::max(1, options.queue_pages)) * work.size(),
                  static_cast<int>(work.size()));
  std::vector<std::thread> threads;
  std::vector<gql::ClientStats> stats(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    FetchJob job{work[i].spec, work[i].report.table, work[i].report.from_ms, work[i].report.end_ms,
                 head_pin};
    threads.emplace_back(FetchTable, i, std::move(job), std::cref(contracts), std::cref(options),
                         std::cref(factory), run.id(), std::cref(stop), std::ref(queue),
                         std::ref(stats[i]));
  }

  // The fetchers' client stats into their table reports; only once the fetchers are done.
  auto apply_stats = [&](std::vector<Work>& into) {
    for (size_t i = 0; i < into.size(); ++i) {
      into[i].report.requests = stats[i].requests;
      into[i].report.retries = stats[i].retries;
      into[i].report.retries_by_kind = stats[i].retries_by_kind;
      into[i].report.smaller_pages = stats[i].smaller_pages;
    }
  };
  Status error;
  bool finished = false;
  const size_t max_batch = static_cast<size_t>(std::max(1, options.max_pages_per_commit));
  // Pages popped and not stored yet: stored in one transaction once there are max_batch of them,
  // kRawCommitWindow after the first, when every fetcher is done or one failed (a kill loses at
  // most that window; the watermarks commit with their pages).
  std::vector<Item> pages;
  std::chrono::steady_clock::time_point held_since;
  ShowProgress(progress, work);
  while (!finished) {
    if (options.cancel != nullptr && options.cancel->load()) {
      error = Status::Cancelled("raw update interrupted");
      break;
    }
    std::vector<Item> batch =
        queue.Pop(max_batch - pages.size(), std::chrono::milliseconds(100), finished);
    if (batch.empty() && !finished && pages.empty()) continue;

    for (Item& item : batch) {
      if (!item.error.ok()) {
        if (error.ok()) error = item.error;
      } else {
        if (pages.empty()) held_since = std::chrono::steady_clock::now();
        pages.push_back(std::move(item));
      }
    }
    if (!finished && error.ok() && pages.size() < max_batch &&
        std::chrono::steady_clock::now() - held_since < kRawCommitWindow) {
      continue;
    }
    auto finish = [&](const std::vector<Work>& pending) -> Status {
      if (!finished || !error.ok() || want_ohlcv) return Status::Ok();
      // Every fetcher is done (finished), so their stats are written.
      std::vector<Work> with_stats = pending;
      apply_stats(with_stats);
      Record(run, with_stats, report, options.finishes_run);
      return options.finishes_run ? run.Finish() : Status::Ok();
    };
    Status st = StoreBatch(lake, stager, pages, run.id(), work, finish, options.at_step);
    if (!st.ok()) {
      if (error.ok()) error = st;
      break;
    }
    pages.clear();
    ShowProgress(progress, work);
    if (!error.ok()) break;
  }

  stop.store(true);
  queue.Stop();
  for (std::thread& t : threads) t.join();
  apply_stats(work);
  return error;
}

// After the subgraph tables, which are stored whatever the exchange does: a failing stream is a
// warning, recorded in the lake, and its candles are late data the ETL folds in when they arrive.
// Capped at the head like the subgraph's tables (slots after it are not built yet). Ends the run
// when options.finishes_run.
Status FetchCandles(lake::Lake& lake, lake::Run& run, const UpdateOptions& options,
                    const ContractMap& contracts, UpdateReport& report,
                    const std::vector<Work>& work, Progress* progress) {
  if (progress != nullptr && progress->enabled()) progress->Update("raw update: candles");
  OhlcvOptions ohlcv;
  ohlcv.start_ms = options.start_ms;
  ohlcv.end_ms = report.end_ms;
  ohlcv.now_ms = options.now_ms;
  ohlcv.gap_after_ms = options.ohlcv_gap_after_ms;
  ohlcv.retry = options.retry;
  ohlcv.sleeper = options.sleeper;
  ohlcv.cancel = options.cancel;
  Status st = FetchOhlcv(lake, run.id(), OhlcvStreams(contracts, options.ohlcv_exchange), ohlcv,
                         options.exchange, report.ohlcv);
  if (!st.ok()) return st;
  for (const std::string& w : report.ohlcv.warnings) report.warnings.push_back(w);
  Record(run, work, report, options.finishes_run);
  if (options.finishes_run) {
    auto tx = duck::Transaction::Begin(lake.conn());
    if (!tx.ok()) return tx.status();
    Status done = run.Finish();
    if (done.ok()) done = tx->Commit();
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

}  // namespace

Result<UpdateReport> Update(lake::Lake& lake, lake::Run& run, const UpdateOptions& options,
                            const TransportFactory& factory, Progress* progress) {
  const auto t0 = std::chrono::steady_clock::now();
  UpdateReport report;
  std::vector<Work> work;
  for (const TableDef& t : RawTables()) {
    bool wanted = options.tables.empty() || std::find(options.tables.begin(), options.tables.end(),
                                                      t.name) != options.tables.end();
    if (!wanted) continue;
    Work w;
    w.spec = FindFetchSpec(t.name);
    w.report.table = std::string(t.name);
    work.push_back(std::move(w));
  }
  const bool want_ohlcv =
      options.exchange &&
      (options.tables.empty() || std::find(options.tables.begin(), options.tables.end(),
                                           lake::kOhlcvTable.name) != options.tables.end());
  for (const std::string& name : options.tables) {
    if (FindTable(name) == nullptr && name != lake::kOhlcvTable.name) {
      return run.Fail(Status::Usage("unknown raw table '" + name + "'"));
    }
  }

  report.run_id = run.id();
  auto fail = [&](const Status& error) -> Status {
    if (progress != nullptr) progress->Finish();
    Record(run, work, report, options.finishes_run);
    return run.Fail(error);
  };

  ContractMap contracts;
  if (Status st = ReadHeadAndContracts(lake, options, factory, run.id(), report, contracts);
      !st.ok()) {
    return fail(st);
  }
  std::optional<std::string> recorded_deployment;
  if (Status st = PlanWindows(lake, options, contracts, report, work, recorded_deployment);
      !st.ok()) {
    return fail(st);
  }
  if (Status st = RecordHead(lake, contracts, report, recorded_deployment); !st.ok()) {
    return fail(st);
  }
  auto stager = Stager::Create(lake.conn());
  if (!stager.ok()) return fail(stager.status());
  // Each statement here moves a few thousand rows: DuckDB's worker threads would only add task
  // handoffs, and the fetching threads need the cores. Restored when the run ends.
  auto duck_threads = duck::ThreadsSetting::AtMost(lake.conn(), 1);
  if (!duck_threads.ok()) return fail(duck_threads.status());
  const HeadPin head_pin{report.head_block, report.deployment};
  // The backfill first, one table after another: a chunk's rows are held until it commits.
  for (size_t i = 0; i < work.size(); ++i) {
    Work& w = work[i];
    if (!w.recorded) continue;
    if (options.start_ms >= w.start_ms) continue;
    Status st = BackfillTable(lake, *stager, w, options.start_ms, contracts, options, factory,
                              run.id(), static_cast<int>(i) + 1, head_pin, progress);
    if (!st.ok()) return fail(st);
  }

  if (Status st = FetchTables(lake, *stager, run, options, factory, contracts, head_pin, want_ohlcv,
                              report, work, progress);
      !st.ok()) {
    return fail(st);
  }
  if (want_ohlcv) {
    if (Status st = FetchCandles(lake, run, options, contracts, report, work, progress); !st.ok()) {
      return fail(st);
    }
  }
  if (progress != nullptr) progress->Finish();
  for (const Work& w : work) report.tables.push_back(w.report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

std::vector<std::string> SkippedContractWarnings(const UpdateReport& report) {
  std::vector<std::string> out;
  for (const UpdateReport::Skipped& c : report.skipped_contracts) {
    out.push_back("raw update: contract " + c.id + " is not a usable feed yet and was skipped: " +
                  c.reason + " (a later run picks it up once it is complete)");
  }
  return out;
}

}  // namespace predlake::raw
