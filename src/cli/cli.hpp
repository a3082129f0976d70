// The command line: parses global flags, dispatches to a registered subcommand (cli/command.hpp),
// and turns every failure into one line on stderr and an exit status (docs/design.md section 5).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "common/time.hpp"

namespace predlake::cli {

// Where a run reads the time and writes its output. Streams and clock are not owned.
struct Io {
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  bool out_is_tty = false;
  bool err_is_tty = false;
  int terminal_width = 0;  // of stdout, 0 when not a terminal
  const Clock* clock = nullptr;
};

// Runs one command line (`args` excludes the program name) and returns the exit status. Help goes
// to io.out; any failure becomes exactly one line on io.err. Exceptions from commands are not
// caught here.
int Run(const std::vector<std::string>& args, const Io& io);
// The same with an explicit command list instead of AllCommands() (tests of the framework itself).
int Run(const std::vector<std::string>& args, const Io& io, const std::vector<CommandSpec>& specs);

// Runs the program with the process's streams and wall clock; returns the process exit status.
// Never throws: an exception becomes one line on stderr and exit status 3.
int Main(int argc, char** argv);

}  // namespace predlake::cli
