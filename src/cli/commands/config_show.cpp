#include "cli/command.hpp"

namespace predlake::cli {
namespace {

struct ConfigShowOptions {
  std::string format = "table";
};

Status Show(Context& ctx, const ConfigShowOptions& o) {
  ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(o.format));
  ResultSet rs;
  rs.columns = {"key", "value", "origin"};
  auto add = [&](std::string key, std::string value, std::string origin) {
    rs.rows.push_back({std::move(key), std::move(value), std::move(origin)});
  };
  const config::Config& cfg = ctx.config();
  add("config", cfg.path.empty() ? "(none: built-in defaults)" : cfg.path,
      ctx.config_origin().Describe());
  add("network", ctx.network(), ctx.network_origin().Describe());
  add("now", FormatTime(ctx.now_ms()),
      ctx.now_is_wall_clock() ? "wall clock" : "sim_ss.now (" + ctx.now_origin().Describe() + ")");
  // The window the lake's commands start from and run up to, resolved against `now` (a start in
  // the future or not before the end is the config error every writer would report).
  ASSIGN_OR_RETURN(int64_t start_ms, ctx.StartMs());
  ASSIGN_OR_RETURN(int64_t end_ms, ctx.FinMs());
  auto resolved_from = [&](const std::string& key) {
    return key + " (" + config::OriginOf(cfg, key).Describe() + ")";
  };
  add("start", FormatTime(start_ms), resolved_from("lake_ss.st_timestr"));
  add("end", FormatTime(end_ms), resolved_from("lake_ss.fin_timestr"));
  add("lake_path", ctx.LakePath(), "lake_ss.lake_dir");
  for (const config::ConfigEntry& e : config::Entries(cfg)) {
    add(e.key, e.value, e.origin.Describe());
  }
  ctx.Write(rs, format);
  return Status::Ok();
}

}  // namespace

RunFn ConfigShowCommand(OptionSet& args) {
  auto o = std::make_shared<ConfigShowOptions>();
  args.Format(&o->format, {"table", "csv", "json"});
  return [o](Context& ctx) { return Show(ctx, *o); };
}

}  // namespace predlake::cli
