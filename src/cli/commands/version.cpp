#include "cli/command.hpp"
#include "duck/duck.hpp"

namespace predlake::cli {

RunFn VersionCommand(OptionSet&) {
  return [](Context& ctx) -> Status {
    ctx.out() << "predlake " << PREDLAKE_VERSION << "\n"
              << "DuckDB " << duck::LibraryVersion() << "\n";
    return Status::Ok();
  };
}

}  // namespace predlake::cli
