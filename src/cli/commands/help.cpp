#include <fmt/ranges.h>

#include "cli/cli.hpp"
#include "cli/command.hpp"
namespace predlake::cli {
namespace {

struct HelpOptions {
  std::vector<std::string> words;
};

// The help `predlake WORDS --help` prints, for a path of the command table (a command or a group);
// no words: predlake's own.
Status Help(Context& ctx, const HelpOptions& o) {
  const std::string path = fmt::format("{}", fmt::join(o.words, " "));
  bool known = path.empty();
  for (const CommandSpec& spec : AllCommands()) known = known || spec.path == path;
  if (!known) return Status::Usage("unknown command '" + path + "' (see 'predlake --help')");
  std::vector<std::string> args = o.words;
  args.push_back("--help");
  Io io;
  io.out = &ctx.out();
  io.err = &ctx.err();
  io.terminal_width = ctx.terminal_width();
  io.clock = &ctx.clock();
  if (const int rc = Run(args, io); rc != 0) {
    return Status::Internal("the help of '" + path + "' exited " + std::to_string(rc));
  }
  return Status::Ok();
}

}  // namespace

RunFn HelpCommand(OptionSet& args) {
  auto o = std::make_shared<HelpOptions>();
  args.Positionals("COMMAND", &o->words,
                   "a command or group, e.g. 'raw update' (none: predlake's)");
  return [o](Context& ctx) { return Help(ctx, *o); };
}

}  // namespace predlake::cli
