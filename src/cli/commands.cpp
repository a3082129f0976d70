// The command table: every command and group, in the order `predlake --help` lists them
// (docs/design.md section 5). Each handler is defined in src/cli/commands/<stem>.cpp (the four ETL
// jobs in etl_jobs.cpp).
#include "cli/command.hpp"

namespace predlake::cli {

RunFn UpdateCommand(OptionSet& args);
RunFn RawUpdateCommand(OptionSet& args);
RunFn RawDropCommand(OptionSet& args);
RunFn RawImportCommand(OptionSet& args);
RunFn EtlUpdateCommand(OptionSet& args);
RunFn EtlDropCommand(OptionSet& args);
RunFn EtlRebuildCommand(OptionSet& args);
RunFn DescribeCommand(OptionSet& args);
RunFn ValidateCommand(OptionSet& args);
RunFn QueryCommand(OptionSet& args);
RunFn RunsCommand(OptionSet& args);
RunFn ExportCommand(OptionSet& args);
RunFn ServeCommand(OptionSet& args);
RunFn SimServeCommand(OptionSet& args);
RunFn SimDumpCommand(OptionSet& args);
RunFn ConfigShowCommand(OptionSet& args);
RunFn HelpCommand(OptionSet& args);
RunFn VersionCommand(OptionSet& args);

const std::vector<CommandSpec>& AllCommands() {
  static const std::vector<CommandSpec> commands = {
      {"update", "raw update, then etl update (with --every, again and again until stopped)",
       UpdateCommand, "update"},
      {"raw", "raw tables: fetch, drop, import", nullptr},
      {"raw update", "fetch every raw table from its watermark", RawUpdateCommand, "raw update"},
      {"raw drop",
       "delete raw rows at or after TIME, move watermarks back (and the checkpoint, if ahead)",
       RawDropCommand, "raw drop"},
      {"raw import",
       "load a pdr-backend lake_data folder or pdr-format CSV files into the raw tables",
       RawImportCommand, "raw import"},
      {"etl", "built tables: update, roll back, rebuild", nullptr},
      {"etl update", "process [checkpoint, frontier): build the bronze and gold tables",
       EtlUpdateCommand, "etl update"},
      {"etl drop", "roll the built tables and the checkpoint back to TIME (raw is untouched)",
       EtlDropCommand, "etl drop"},
      {"etl rebuild", "rebuild every built table from raw in one run (no refetch)",
       EtlRebuildCommand, "etl rebuild"},
      {"describe", "tables, row counts, time ranges, watermarks, checkpoint, frontier, last runs",
       DescribeCommand},
      {"validate", "data-quality checks; exit status 1 when a check fails", ValidateCommand,
       "validate --incremental"},
      {"query", "run one read-only SQL statement against the lake", QueryCommand},
      {"runs", "the run ledger, newest first, with per-table counts", RunsCommand},
      {"export", "write an atomic, incremental Parquet snapshot under lake_dir/exports/",
       ExportCommand, "export"},
      {"serve",
       "the dashboard: an HTTP server on the current snapshot (127.0.0.1:8050; --every also "
       "updates)",
       ServeCommand},
      {"sim", "the simulated network", nullptr},
      {"sim serve", "serve the simulated network's subgraph over HTTP on 127.0.0.1",
       SimServeCommand},
      {"sim dump",
       "print the simulated network's ground truth for a raw table as CSV "
       "(rows in [--from, --to), capped at the indexed head)",
       SimDumpCommand},
      {"config", "the configuration", nullptr},
      {"config show", "print every resolved setting and where it came from", ConfigShowCommand},
      {"help", "print the help of COMMAND (a command or group), or predlake's", HelpCommand,
       /*writer_run=*/{}, /*needs_config=*/false},
      {"version", "print predlake's and DuckDB's versions (also: predlake --version)",
       VersionCommand, /*writer_run=*/{}, /*needs_config=*/false},
  };
  return commands;
}

}  // namespace predlake::cli
