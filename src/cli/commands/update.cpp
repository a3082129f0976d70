#include "raw/update.hpp"

#include "cli/command.hpp"
#include "cli/network.hpp"
#include "etl/etl.hpp"
#include "ops/loop.hpp"
#include "ops/open.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string to;     // empty: lake_ss.fin_timestr
  std::string every;  // empty: run once
};

// One run: raw update, then etl update, recorded as one `update` run in the ledger; the lake is
// open only for the length of the run so that readers get in between runs of a loop. `now_ms`
// resolves the time strings (a loop resolves them again for every run, so that `now` moves on).
Status UpdateOnce(Context& ctx, const Options& o, const raw::TransportFactory& factory,
                  int64_t now_ms) {
  const std::string& to_text = o.to.empty() ? ctx.config().lake.fin_timestr : o.to;
  Result<int64_t> to = ParseTime(to_text, now_ms);
  if (!to.ok()) {
    return o.to.empty() ? ctx.FinMs().status() : to.status().WithContext("--to");
  }
  ASSIGN_OR_RETURN(int64_t start_ms, ctx.StartMs());

  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = "update";
  open.clock = &ctx.clock();
  ASSIGN_OR_RETURN(std::unique_ptr<lake::Lake> lake,
                   ops::OpenWithRetry(ctx.LakeDir(), open, ops::ReaderRetry(ctx.log())));
  std::unique_ptr<Progress> progress = ctx.MakeProgress();

  // One ledger run for the whole command: the raw fetch records its watermarks under it, and the
  // ETL records the outcome (success inside its publish transaction).
  ASSIGN_OR_RETURN(int64_t run_id, lake->BeginRun("update"));
  raw::UpdateOptions raw_options;
  raw_options.start_ms = start_ms;
  raw_options.end_ms = *to;
  raw_options.command = "update";
  raw_options.run_id = run_id;
  raw_options.cancel = &Context::EnableCancellation();
  Result<raw::UpdateReport> raw_report = raw::Update(*lake, raw_options, factory, progress.get());
  progress->Finish();
  if (!raw_report.ok()) {
    Status recorded = lake->FailRun(run_id, raw_report.status());
    if (!recorded.ok()) {
      return Status(raw_report.status().code(),
                    raw_report.status().message() +
                        " (and the failure could not be recorded: " + recorded.message() + ")");
    }
    return raw_report.status();
  }
  etl::UpdateOptions etl_options;
  etl_options.to_ms = *to;
  etl_options.st_ms = start_ms;
  etl_options.progress = progress.get();
  etl_options.run_id = run_id;
  int64_t fetched = 0, stored = 0;
  for (const raw::TableReport& t : raw_report->tables) {
    fetched += t.rows_in;
    stored += t.rows_out;
    lake::TableCounts& c = etl_options.base_summary.tables[t.table];
    c.rows_in = t.rows_in;
    c.rows_out = t.rows_out;
    c.rows_updated = t.rows_updated;
  }
  etl_options.base_summary.detail_json = "{\"head_ms\":" + std::to_string(raw_report->head_ms) +
                                         ",\"end_ms\":" + std::to_string(raw_report->end_ms) + "}";
  ctx.log().Info("raw update on " + ctx.network() + ": " + std::to_string(fetched) +
                     " records fetched, " + std::to_string(stored) + " new, up to " +
                     FormatTime(raw_report->end_ms) + " (indexed head " +
                     FormatTime(raw_report->head_ms) + ")",
                 {{"run", std::to_string(run_id)}});
  ASSIGN_OR_RETURN(etl::RunReport report, etl::Update(*lake, etl_options));
  progress->Finish();
  ctx.log().Info(report.message, {{"run", std::to_string(report.run_id)}});
  return Status::Ok();
}

Status Update(Context& ctx, const Options& o) {
  if (o.every.empty()) {
    ASSIGN_OR_RETURN(raw::TransportFactory factory, MakeTransportFactory(ctx));
    return UpdateOnce(ctx, o, factory, ctx.now_ms());
  }
  // Bad options are usage errors before anything is opened, not a failing loop.
  Result<int64_t> every = ParseDuration(o.every);
  if (!every.ok()) return every.status().WithContext("--every");
  const int64_t every_ms = *every;
  if (every_ms <= 0) {
    return Status::Usage("--every: must be a positive duration, not '" + o.every + "'");
  }
  if (!o.to.empty()) RETURN_IF_ERROR(ctx.ParseTimeArg(o.to, "--to").status());
  ASSIGN_OR_RETURN(raw::TransportFactory factory, MakeTransportFactory(ctx));
  ops::LoopOptions loop;
  loop.every_ms = every_ms;
  loop.clock = &ctx.clock();
  const std::atomic<bool>& cancelled = Context::EnableCancellation();
  return ops::RunEvery(
      loop,
      [&]() {
        return UpdateOnce(ctx, o, factory,
                          ctx.now_is_wall_clock() ? ctx.clock().NowMs() : ctx.now_ms());
      },
      cancelled, ctx.log());
}

}  // namespace

RunFn UpdateCommand(OptionSet& args) {
  auto o = std::make_shared<Options>();
  args.Time("--to", &o->to,
            "end of the window (default lake_ss.fin_timestr; capped at the indexed head and the "
            "frontier)");
  args.Text("--every", &o->every,
            "repeat on this cadence (500ms, 30s, 5m, 2h, 1d) until SIGINT/SIGTERM");
  return [o](Context& ctx) { return Update(ctx, *o); };
}

}  // namespace predlake::cli
