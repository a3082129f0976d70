#include "cli/command.hpp"
#include "source/sim/dump.hpp"

namespace predlake::cli {
namespace {

struct SimDumpOptions {
  std::string table;
  std::string from;  // empty: lake_ss.st_timestr
  std::string to = "now";
};

Status DumpTable(Context& ctx, const SimDumpOptions& o) {
  // By default the window a complete fetch into this config's lake covers, so that the dump is
  // what that lake holds: from lake_ss.st_timestr (the candles before the world's start included).
  int64_t from_ms = 0;
  if (o.from.empty()) {
    ASSIGN_OR_RETURN(from_ms, ctx.StartMs());
  } else {
    ASSIGN_OR_RETURN(from_ms, ctx.ParseTimeArg(o.from, "--from"));
  }
  ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
  ASSIGN_OR_RETURN(std::shared_ptr<const sim::Engine> engine,
                   sim::Engine::Create(ctx.config().sim, ctx.now_ms()));
  return sim::Dump(*engine, o.table, from_ms, to_ms, ctx.out());
}

}  // namespace

RunFn SimDumpCommand(OptionSet& args) {
  auto o = std::make_shared<SimDumpOptions>();
  args.Positional("TABLE", &o->table,
                  "pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions, pdr_slots or "
                  "pdr_ohlcv")
      .Required();
  args.Time("--from", &o->from, "start of the window (default lake_ss.st_timestr)");
  args.Time("--to", &o->to, "end of the window (exclusive)");
  return [o](Context& ctx) { return DumpTable(ctx, *o); };
}

}  // namespace predlake::cli
