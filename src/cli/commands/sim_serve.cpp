#include "cli/command.hpp"
#include "source/sim/server.hpp"
#include "source/sim/subgraph.hpp"

namespace predlake::cli {
namespace {

struct SimServeOptions {
  int64_t port = 0;
};

Status Serve(Context& ctx, const SimServeOptions& o) {
  // With a wall-clock now the indexed head keeps moving while the server runs; a pinned now stays
  // put.
  std::shared_ptr<const Clock> live;
  if (ctx.now_is_wall_clock())
    live = std::shared_ptr<const Clock>(&ctx.clock(), [](const Clock*) {});
  ASSIGN_OR_RETURN(std::shared_ptr<const sim::Engine> engine,
                   sim::Engine::Create(ctx.config().sim, ctx.now_ms(), live));
  sim::ServerOptions options;
  options.port = static_cast<int>(o.port);
  ASSIGN_OR_RETURN(std::unique_ptr<sim::Server> server, sim::Listen(engine, options));
  const std::atomic<bool>& cancelled = Context::EnableCancellation();
  ctx.out() << server->Url() << std::endl;
  ctx.log().Info("serving the simulated subgraph at " + server->Url() + " (Ctrl-C stops)");
  RETURN_IF_ERROR(server->RunUntil(cancelled));
  ctx.log().Info("stopped after " + std::to_string(server->requests()) + " requests");
  return Status::Cancelled("sim serve: stopped by a signal");
}

}  // namespace

RunFn SimServeCommand(OptionSet& args) {
  auto o = std::make_shared<SimServeOptions>();
  args.Integer("--port", &o->port, "TCP port; 0 picks a free one").Range(0, 65535);
  return [o](Context& ctx) { return Serve(ctx, *o); };
}

}  // namespace predlake::cli
