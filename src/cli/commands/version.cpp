#include "cli/command.hpp"
#include "duck/duck.hpp"

namespace predlake::cli {

PREDLAKE_COMMAND(version) {
  CommandSpec spec;
  spec.path = "version";
  spec.help = "print predlake's and DuckDB's versions";
  spec.needs_config = false;
  spec.setup = [](CLI::App&) -> RunFn {
    return [](Context& ctx) -> Status {
      ctx.out() << "predlake " << PREDLAKE_VERSION << "\n"
                << "DuckDB " << duck::LibraryVersion() << "\n";
      return Status::Ok();
    };
  };
  return spec;
}

}  // namespace predlake::cli
