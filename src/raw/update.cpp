#include "raw/update.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "raw/contracts.hpp"
#include "raw/fetch.hpp"
#include "raw/store.hpp"

namespace predlake::raw {
namespace {

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
  int64_t start_ms = 0;      // the watermark's start
  int64_t watermark_ms = 0;  // committed so far
};

std::string Window(int64_t from_ms, int64_t end_ms) {
  return "[" + FormatTime(from_ms) + ", " + FormatTime(end_ms) + ")";
}

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
    line += " " + ShortName(r.table) + " " + std::to_string(pct) + "% " + Count(r.rows_in);
  }
  progress->Update(line);
}

lake::RunSummary Summarize(const std::vector<Work>& work, const UpdateReport& report) {
  lake::RunSummary s;
  for (const Work& w : work) {
    lake::TableCounts c;
    c.rows_in = w.report.rows_in;
    c.rows_out = w.report.rows_out;
    c.rows_updated = w.report.rows_updated;
    s.tables[w.report.table] = c;
    s.window_start_ms =
        s.window_start_ms ? std::min(*s.window_start_ms, w.report.from_ms) : w.report.from_ms;
  }
  if (!work.empty()) s.window_end_ms = report.end_ms;
  s.detail_json = "{\"head_ms\":" + std::to_string(report.head_ms) +
                  ",\"end_ms\":" + std::to_string(report.end_ms) +
                  ",\"contracts\":" + std::to_string(report.contracts) + "}";
  return s;
}

Result<std::unique_ptr<gql::Transport>> MakeTransport(const TransportFactory& factory) {
  try {
    std::unique_ptr<gql::Transport> t = factory ? factory() : nullptr;
    if (!t) return Status::Internal("the transport factory returned no transport");
    return t;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("creating a transport failed: ") + e.what());
  }
}

// What a fetcher thread needs; a copy, so that the writer may change the Work meanwhile.
struct FetchJob {
  const FetchSpec* spec = nullptr;
  std::string table;
  int64_t from_ms = 0;
  int64_t end_ms = 0;
};

// Fetches one table's window into `queue`. Runs on its own thread; never throws. `stats` is
// written at the end, for the caller to read after joining.
void FetchTable(size_t index, FetchJob job, const ContractMap& contracts,
                const UpdateOptions& options, const TransportFactory& factory,
                const std::atomic<bool>& stop, PageQueue& queue, gql::ClientStats& stats) {
  const std::string context = job.table + " " + Window(job.from_ms, job.end_ms);
  Status error;
  try {
    auto transport = MakeTransport(factory);
    if (!transport.ok()) {
      error = Status(transport.status().code(), context + " " + transport.status().message());
    } else {
      gql::Client client(std::move(transport).value(), options.retry, options.sleeper);
      client.set_stop_flag(&stop);
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

}  // namespace

Result<UpdateReport> Update(lake::Lake& lake, const UpdateOptions& options,
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
  for (const std::string& name : options.tables) {
    if (FindTable(name) == nullptr) {
      return Status::Usage("unknown raw table '" + name + "'");
    }
  }

  const bool own_run = !options.run_id.has_value();
  int64_t run_id = 0;
  if (own_run) {
    ASSIGN_OR_RETURN(run_id, lake.BeginRun(options.command));
  } else {
    run_id = *options.run_id;
  }
  report.run_id = run_id;
  auto fail = [&](Status error) -> Status {
    if (own_run) {
      Status recorded = lake.FailRun(run_id, error, Summarize(work, report));
      if (!recorded.ok()) {
        error = Status(error.code(), error.message() + " (and recording the failure failed: " +
                                         recorded.message() + ")");
      }
    }
    if (progress != nullptr) progress->Finish();
    return error;
  };

  // The head first, then the contracts: every event at or before the head belongs to a contract
  // that exists by then, so the contract list read afterwards knows all of them.
  ContractMap contracts;
  {
    auto transport = MakeTransport(factory);
    if (!transport.ok()) return fail(transport.status());
    gql::Client client(std::move(transport).value(), options.retry, options.sleeper);
    client.set_stop_flag(options.cancel);
    auto head = FetchHeadMs(client);
    if (!head.ok()) return fail(head.status().WithContext("reading the indexed head"));
    report.head_ms = *head;
    auto fetched = FetchContracts(client);
    if (!fetched.ok()) return fail(fetched.status());
    contracts = std::move(fetched).value();
  }
  report.contracts = static_cast<int64_t>(contracts.size());
  report.end_ms = std::min(options.end_ms, report.head_ms);

  auto marks = lake.Watermarks();
  if (!marks.ok()) return fail(marks.status());
  const int64_t slot_lookback = MaxSlotSettleMs(contracts) + options.slot_margin_ms;
  for (Work& w : work) {
    TableReport& r = w.report;
    auto it = marks->find(r.table);
    if (it != marks->end()) {
      r.before = it->second;
      w.start_ms = it->second.start_ms;
      w.watermark_ms = it->second.watermark_ms;
    } else {
      w.start_ms = options.start_ms;
      w.watermark_ms = options.start_ms;
    }
    r.from_ms = w.watermark_ms;
    if (w.spec->table->upsert) r.from_ms = std::max(w.start_ms, w.watermark_ms - slot_lookback);
    r.end_ms = report.end_ms;
    r.after = {w.start_ms, w.watermark_ms};
  }

  {
    auto tx = duck::Transaction::Begin(lake.conn());
    if (!tx.ok()) return fail(tx.status());
    Status st = StoreContracts(lake.conn(), contracts);
    if (st.ok()) st = tx->Commit();
    if (!st.ok()) return fail(st);
  }
  auto stager = Stager::Create(lake.conn());
  if (!stager.ok()) return fail(stager.status());

  std::atomic<bool> stop{false};
  PageQueue queue(static_cast<size_t>(std::max(1, options.queue_pages)) * work.size(),
                  static_cast<int>(work.size()));
  std::vector<std::thread> threads;
  std::vector<gql::ClientStats> stats(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    FetchJob job{work[i].spec, work[i].report.table, work[i].report.from_ms, work[i].report.end_ms};
    threads.emplace_back(FetchTable, i, std::move(job), std::cref(contracts), std::cref(options),
                         std::cref(factory), std::cref(stop), std::ref(queue), std::ref(stats[i]));
  }

  Status error;
  bool finished = false;
  const size_t max_batch = static_cast<size_t>(std::max(1, options.max_pages_per_commit));
  ShowProgress(progress, work);
  while (!finished) {
    if (options.cancel != nullptr && options.cancel->load()) {
      error = Status::Cancelled("raw update interrupted");
      break;
    }
    std::vector<Item> batch = queue.Pop(max_batch, std::chrono::milliseconds(100), finished);
    if (batch.empty() && !finished) continue;

    // Counts and watermarks of this batch take effect only if its transaction commits.
    std::vector<Work> pending = work;
    Status st;
    auto tx = duck::Transaction::Begin(lake.conn());
    if (!tx.ok()) st = tx.status();
    for (Item& item : batch) {
      if (!st.ok()) break;
      if (!item.error.ok()) {
        if (error.ok()) error = item.error;
        continue;
      }
      Work& w = pending[item.work];
      const Page& page = *item.page;
      auto counts = stager->Store(*w.spec->table, page.rows);
      if (!counts.ok()) {
        st = counts.status().WithContext(w.report.table + " page " + std::to_string(page.number));
        break;
      }
      w.watermark_ms = std::max(w.watermark_ms, page.watermark_ms);
      w.report.after = {w.start_ms, w.watermark_ms};
      w.report.pages += 1;
      w.report.rows_in += counts->rows_in;
      w.report.rows_out += counts->rows_out;
      w.report.rows_updated += counts->rows_updated;
      st = lake.SetWatermark(w.report.table, w.report.after, run_id);
    }
    if (st.ok() && finished && error.ok() && own_run) {
      st = lake.FinishRun(run_id, Summarize(pending, report));
    }
    if (st.ok()) st = tx->Commit();
    if (!st.ok()) {
      if (error.ok()) error = st;
      (void)stager->Clear();
      break;
    }
    work = std::move(pending);
    ShowProgress(progress, work);
    if (!error.ok()) break;
  }

  stop.store(true);
  queue.Stop();
  for (std::thread& t : threads) t.join();
  if (!error.ok()) return fail(error);
  if (progress != nullptr) progress->Finish();
  for (size_t i = 0; i < work.size(); ++i) {
    work[i].report.requests = stats[i].requests;
    work[i].report.retries = stats[i].retries;
    report.tables.push_back(work[i].report);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace predlake::raw
