#include "cli/command.hpp"
#include "cli/writer_env.hpp"
#include "jobs/writer.hpp"
#include "raw/import.hpp"

namespace predlake::cli {
namespace {

struct RawImportOptions {
  std::vector<std::string> paths;
  std::string from;
  std::string to;
};

Status RawImport(Context& ctx, const RawImportOptions& o) {
  raw::ImportOptions options;
  options.paths = o.paths;
  if (!o.from.empty()) {
    ASSIGN_OR_RETURN(int64_t from_ms, ctx.ParseTimeArg(o.from, "--from"));
    options.from_ms = from_ms;
  }
  if (!o.to.empty()) {
    ASSIGN_OR_RETURN(int64_t to_ms, ctx.ParseTimeArg(o.to, "--to"));
    options.to_ms = to_ms;
    if (to_ms > ctx.now_ms() + 1) {
      // The end is exclusive: now + 1 ms still covers only events up to now. Refused before the
      // lake is opened, so that nothing is recorded.
      return Status::Usage("raw import: --to " + o.to + " (" + FormatTime(to_ms) +
                           ") is in the future (now is " + FormatTime(ctx.now_ms()) +
                           "); the files cannot cover events that have not happened");
    }
  }
  if (options.from_ms.has_value() != options.to_ms.has_value()) {
    return Status::Usage("raw import: give both --from and --to, or neither");
  }
  // Mistakes in the window are refused before the lake opens, so that nothing is recorded.
  if (options.from_ms && options.to_ms && *options.from_ms >= *options.to_ms) {
    return Status::Usage("raw import: --from " + FormatTime(*options.from_ms) +
                         " is not before --to " + FormatTime(*options.to_ms));
  }
  options.network = ctx.network();
  options.now_ms = ctx.now_ms();
  std::unique_ptr<Progress> progress = ctx.MakeProgress();
  ASSIGN_OR_RETURN(raw::ImportReport report,
                   jobs::RunWriter<raw::ImportReport>(
                       WriterEnvFor(ctx), "raw import", [&](lake::Lake& lake, lake::Run& run) {
                         return raw::Import(lake, run, options, progress.get());
                       }));
  ctx.log().Info("raw import: window " + FormatTime(report.from_ms) + " to " +
                 FormatTime(report.to_ms));
  for (const raw::ImportTableReport& t : report.tables) {
    ctx.log().Info(t.table + ": " + std::to_string(t.counts.rows_in) + " rows read from " +
                   std::to_string(t.files.size()) + " file(s), " +
                   std::to_string(t.counts.rows_out) + " new, covers " +
                   FormatTime(t.after.start_ms) + " to " + FormatTime(t.after.watermark_ms));
  }
  return Status::Ok();
}

}  // namespace

RunFn RawImportCommand(OptionSet& args) {
  auto o = std::make_shared<RawImportOptions>();
  args.Positionals("PATH", &o->paths,
                   "lake_data folders (<table>/*.csv, <table>.csv, <table>_*.csv) or CSV files")
      .Required();
  args.Time("--from", &o->from,
            "start of the window the files cover (default: their first timestamp)");
  args.Time("--to", &o->to,
            "end of the window the files cover (default: their last timestamp + 1 ms)");
  return [o](Context& ctx) { return RawImport(ctx, *o); };
}

}  // namespace predlake::cli
