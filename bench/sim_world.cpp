// module: predlake_source_sim
// Generation (events/s) and serving (records/s, in-process and over HTTP) of the simulated network.
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/time.hpp"
#include "source/sim/dump.hpp"
#include "source/sim/server.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/transport.hpp"

namespace predlake::sim {
namespace {

constexpr int64_t kStart = 1721865600;  // 2024-07-25T00:00:00Z

std::shared_ptr<const Engine> BenchEngine() {
  config::SimConfig c;
  c.start = "2024-07-20";
  c.now = "2024-07-26";
  auto e = Engine::Create(c, *ParseTime(c.now, 0));
  return *e;
}

void BM_GeneratePredictions(benchmark::State& state) {
  auto e = BenchEngine();
  const World& w = e->world();
  std::vector<std::pair<int64_t, Prediction>> out;
  int64_t events = 0;
  for (auto _ : state) {
    for (const Feed& f : w.feeds()) {
      out.clear();
      w.PredictionsIn(f.index, kStart, kStart + 6 * 3600, out);
      events += static_cast<int64_t>(out.size());
    }
  }
  state.SetItemsProcessed(events);
}
BENCHMARK(BM_GeneratePredictions)->Unit(benchmark::kMillisecond);

void BM_GeneratePayouts(benchmark::State& state) {
  auto e = BenchEngine();
  const World& w = e->world();
  std::vector<Payout> out;
  int64_t events = 0;
  for (auto _ : state) {
    SlotCache cache(w);
    out.clear();
    w.PayoutsIn(kStart, kStart + 6 * 3600, {}, cache, out);
    events += static_cast<int64_t>(out.size());
  }
  state.SetItemsProcessed(events);
}
BENCHMARK(BM_GeneratePayouts)->Unit(benchmark::kMillisecond);

// The fetcher's page query for predictions.
std::string PageBody(int64_t after_ts) {
  return nlohmann::json(
             {{"query",
               "{ predictPredictions(first: 1000, orderBy: timestamp, orderDirection: asc, where: "
               "{timestamp_gt: " +
                   std::to_string(after_ts) + ", timestamp_lt: " + std::to_string(kStart + 86400) +
                   "}) { id timestamp stake txId block user { id } slot { id slot predictContract "
                   "{ id secondsPerEpoch token { name nft { nftData { key value } } } } } } }"}})
      .dump();
}

int64_t LastTimestamp(const std::string& body) {
  const size_t pos = body.rfind("\"timestamp\":");
  return pos == std::string::npos ? 0 : std::stoll(body.substr(pos + 12, 12));
}

void BM_ServeInProcess(benchmark::State& state) {
  InProcessTransport t(BenchEngine());
  int64_t records = 0, bytes = 0, after = kStart;
  for (auto _ : state) {
    auto r = t.Post(PageBody(after));
    after = LastTimestamp(r->body);
    if (after >= kStart + 80000) after = kStart;
    records += 1000;
    bytes += static_cast<int64_t>(r->body.size());
  }
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_ServeInProcess)->Unit(benchmark::kMillisecond);

void BM_ServeHttp(benchmark::State& state) {
  auto s = Listen(BenchEngine(), {});
  std::unique_ptr<Server> server = std::move(s).value();
  std::thread runner([&] { (void)server->Run(); });
  {
    httplib::Client client("127.0.0.1", server->port());
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);
    int64_t records = 0, after = kStart;
    for (auto _ : state) {
      auto r = client.Post("/", PageBody(after), "application/json");
      after = LastTimestamp(r->body);
      if (after >= kStart + 80000) after = kStart;
      records += 1000;
    }
    state.SetItemsProcessed(records);
  }
  server->Stop();
  runner.join();
}
BENCHMARK(BM_ServeHttp)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DumpPredictions(benchmark::State& state) {
  auto e = BenchEngine();
  int64_t rows = 0;
  for (auto _ : state) {
    Status st = ForEachDumpRow(*e, "pdr_predictions", (kStart + 6 * 3600) * 1000,
                               [&](const std::vector<std::string>&) { ++rows; });
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(rows);
}
BENCHMARK(BM_DumpPredictions)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace predlake::sim

BENCHMARK_MAIN();
