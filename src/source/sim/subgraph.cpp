#include "source/sim/subgraph.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>

#include "source/sim/subgraph_executor.hpp"

namespace predlake::sim {
namespace {

using graphql::Value;

constexpr int kMaxJsonDepth = 64;

// Largest nesting of [ and { outside strings, to refuse pathological JSON before parsing it.
int JsonDepth(std::string_view body) {
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

Value FromJson(const nlohmann::json& j) {
  Value v;
  switch (j.type()) {
    case nlohmann::json::value_t::boolean:
      v.kind = Value::Kind::kBool;
      v.bool_value = j.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      v.kind = Value::Kind::kInt;
      v.int_value = j.get<int64_t>();
      break;
    case nlohmann::json::value_t::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        v.kind = Value::Kind::kInt;
        v.int_value = static_cast<int64_t>(u);
      } else {
        v.kind = Value::Kind::kFloat;
        v.float_value = static_cast<double>(u);
        v.text = std::to_string(u);
      }
      break;
    }
    case nlohmann::json::value_t::number_float:
      v.kind = Value::Kind::kFloat;
      v.float_value = j.get<double>();
      v.text = j.dump();
      break;
    case nlohmann::json::value_t::string:
      v.kind = Value::Kind::kString;
      v.text = j.get<std::string>();
      break;
    case nlohmann::json::value_t::array:
      v.kind = Value::Kind::kList;
      for (const auto& item : j) v.items.push_back(FromJson(item));
      break;
    case nlohmann::json::value_t::object:
      v.kind = Value::Kind::kObject;
      for (const auto& [k, item] : j.items()) v.fields.emplace_back(k, FromJson(item));
      break;
    default:
      break;
  }
  return v;
}

std::string ErrorBody(const std::string& message) {
  nlohmann::json j = {{"errors", nlohmann::json::array({{{"message", message}}})}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

gql::HttpResponse BadRequest(const std::string& message) {
  gql::HttpResponse r;
  r.status = 400;
  r.body = ErrorBody(message);
  return r;
}

}  // namespace

Result<std::shared_ptr<const Engine>> Engine::Create(const config::SimConfig& config,
                                                     int64_t now_ms,
                                                     std::shared_ptr<const Clock> live_clock) {
  Result<int64_t> start = ParseTime(config.start, now_ms);
  if (!start.ok()) return start.status().WithContext("sim_ss.start");
  if (config.indexing_lag_ms < 0) return Status::Config("sim_ss.indexing_lag must not be negative");
  ASSIGN_OR_RETURN(std::shared_ptr<const World> world, World::Create(config, *start));
  std::shared_ptr<Engine> e(new Engine());
  e->config_ = config;
  e->now_ms_ = now_ms;
  e->clock_ = std::move(live_clock);
  e->world_ = std::move(world);
  return std::shared_ptr<const Engine>(std::move(e));
}

int64_t Engine::NowMs() const { return clock_ ? clock_->NowMs() : now_ms_; }

gql::HttpResponse Engine::HandleExchange(std::string_view path_and_query) const {
  auto bad = [](int code, const std::string& msg) {
    nlohmann::json body = {{"code", code}, {"msg", msg}};
    return gql::HttpResponse{400, body.dump(), std::nullopt};
  };
  if (path_and_query.substr(0, path_and_query.find('?')) == exchange::kTimePath) {
    return gql::HttpResponse{200, nlohmann::json({{"serverTime", NowMs()}}).dump(), std::nullopt};
  }
  auto request = exchange::ParseKlinesPathAndQuery(path_and_query);
  if (!request.ok()) return bad(-1100, request.status().message());
  const int feed = world_->FeedBySymbol(request->symbol, request->interval);
  if (feed < 0) return bad(-1121, "Invalid symbol.");
  if (request->start_ms < 0) return bad(-1102, "this simulator needs startTime");
  // Binance answers the candle still open too; a client must drop it.
  const int64_t now = NowMs();
  const int64_t end = request->end_ms < 0 ? now : std::min(request->end_ms, now);
  std::vector<exchange::Candle> candles;
  world_->CandlesIn(feed, request->start_ms, end, request->limit, candles);
  const int64_t e_ms = world_->feeds()[static_cast<size_t>(feed)].epoch * 1000;
  nlohmann::json out = nlohmann::json::array();
  for (const exchange::Candle& c : candles) {
    out.push_back({c.open_ms, c.open, c.high, c.low, c.close, c.volume, c.open_ms + e_ms - 1, "0",
                   0, "0", "0", "0"});
  }
  return gql::HttpResponse{200, out.dump(), std::nullopt};
}

int64_t Engine::HeadMs() const {
  const int64_t now = clock_ ? clock_->NowMs() : now_ms_;
  return now - config_.indexing_lag_ms;
}

Result<std::string> Engine::Execute(std::string_view query, const graphql::Value& variables,
                                    const AnswerOptions& answer) const {
  ASSIGN_OR_RETURN(graphql::Document doc, graphql::Parse(query));
  RETURN_IF_ERROR(graphql::BindVariables(doc, variables));
  return subgraph::ExecuteDocument(*world_, HeadMs() - std::max<int64_t>(answer.head_behind_ms, 0),
                                   doc, answer.null_head_timestamp,
                                   static_cast<size_t>(config_.max_response_mb) << 20);
}

gql::HttpResponse Engine::Handle(std::string_view body, const AnswerOptions& answer) const {
  try {
    if (body.size() > kMaxRequestBytes) return BadRequest("request body is too large");
    if (JsonDepth(body) > kMaxJsonDepth) return BadRequest("request body is nested too deeply");
    nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
    if (req.is_discarded()) return BadRequest("request body is not valid JSON");
    if (!req.is_object()) return BadRequest("request body must be a JSON object");
    auto q = req.find("query");
    if (q == req.end() || !q->is_string()) {
      return BadRequest("request body must have a string field \"query\"");
    }
    Value variables;
    auto vars = req.find("variables");
    if (vars != req.end() && !vars->is_null()) {
      if (!vars->is_object()) return BadRequest("\"variables\" must be a JSON object");
      variables = FromJson(*vars);
    }
    Result<std::string> data = Execute(q->get_ref<const std::string&>(), variables, answer);
    gql::HttpResponse resp;
    resp.status = 200;
    resp.body = data.ok() ? std::move(data).value() : ErrorBody(data.status().message());
    return resp;
  } catch (const std::exception& e) {
    gql::HttpResponse resp;
    resp.status = 500;
    resp.body = ErrorBody(std::string("internal error: ") + e.what());
    return resp;
  }
}

}  // namespace predlake::sim
