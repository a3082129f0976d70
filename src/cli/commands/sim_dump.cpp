#include "cli/command.hpp"
#include "source/sim/dump.hpp"

namespace predlake::cli {
namespace {

struct SimDumpOptions {
  std::string table;
  std::string to = "now";
};

Status DumpTable(Context& ctx, const SimDumpOptions& o) {
  ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
  ASSIGN_OR_RETURN(std::shared_ptr<const sim::Engine> engine,
                   sim::Engine::Create(ctx.config().sim, ctx.now_ms()));
  return sim::Dump(*engine, o.table, to_ms, ctx.out());
}

}  // namespace

RunFn SimDumpCommand(OptionSet& args) {
  auto o = std::make_shared<SimDumpOptions>();
  args.Positional("TABLE", &o->table,
                  "pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions or pdr_slots")
      .Required();
  args.Time("--to", &o->to, "end of the window (exclusive)");
  return [o](Context& ctx) { return DumpTable(ctx, *o); };
}

}  // namespace predlake::cli
