#include "cli/command.hpp"
#include "source/sim/dump.hpp"

namespace predlake::cli {
namespace {

struct Options {
  std::string table;
  std::string to = "now";
};

Status DumpTable(Context& ctx, const Options& o) {
  ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
  ASSIGN_OR_RETURN(std::shared_ptr<const sim::Engine> engine,
                   sim::Engine::Create(ctx.config().sim, ctx.now_ms()));
  return sim::Dump(*engine, o.table, to_ms, ctx.out());
}

}  // namespace

PREDLAKE_COMMAND(sim_dump) {
  return MakeCommand<Options>(
      "sim dump",
      "print the simulated network's ground truth for a raw table as CSV (events before --to, "
      "capped at the indexed head)",
      [](CLI::App& app, Options& o) {
        app.add_option("TABLE", o.table,
                       "pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions or pdr_slots")
            ->required();
        AddTimeOption(app, "--to", o.to, "end of the window (exclusive)");
      },
      DumpTable);
}

}  // namespace predlake::cli
