// The command line: parses global flags, dispatches to a registered subcommand, and turns every failure into
// one line on stderr and an exit status (DESIGN.md section 5).
#pragma once

namespace predlake::cli {

// Runs the program; returns the process exit status. Never throws.
int Main(int argc, char** argv);

}  // namespace predlake::cli
