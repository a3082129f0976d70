#include "source/exchange/exchange.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/time.hpp"

namespace predlake::exchange {
namespace {

bool ExchangeStopped(const std::atomic<bool>* stop) { return stop != nullptr && stop->load(); }

std::string Excerpt(std::string_view body) {
  std::string out(body.substr(0, 200));
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

HttpTransport::HttpTransport(std::string base_url)
    : base_url_(std::move(base_url)), http_(base_url_) {}

Result<gql::HttpResponse> HttpTransport::Get(const std::string& path_and_query) {
  return http_.Get(path_and_query);
}

std::optional<std::string> BinanceSymbol(std::string_view pair) {
  std::string out;
  size_t sep = pair.find_first_of("/-");
  if (sep == std::string_view::npos || sep == 0 || sep + 1 >= pair.size()) return std::nullopt;
  for (size_t i = 0; i < pair.size(); ++i) {
    if (i == sep) continue;
    unsigned char c = static_cast<unsigned char>(pair[i]);
    if (!std::isalnum(c)) return std::nullopt;
    out += static_cast<char>(std::toupper(c));
  }
  return out;
}

std::optional<int64_t> TimeframeMs(std::string_view timeframe) {
  if (timeframe.size() < 2) return std::nullopt;
  auto n = ParseInt(timeframe.substr(0, timeframe.size() - 1));
  if (!n || *n <= 0) return std::nullopt;
  switch (timeframe.back()) {
    case 's':
      return *n * 1000;
    case 'm':
      return *n * 60'000;
    case 'h':
      return *n * 3'600'000;
    case 'd':
      return *n * 86'400'000;
    default:
      return std::nullopt;
  }
}

std::string KlinesPathAndQuery(const KlinesRequest& r) {
  return std::string(kKlinesPath) + "?symbol=" + r.symbol + "&interval=" + r.interval +
         "&startTime=" + std::to_string(r.start_ms) + "&endTime=" + std::to_string(r.end_ms) +
         "&limit=" + std::to_string(r.limit);
}

Result<KlinesRequest> ParseKlinesPathAndQuery(std::string_view path) {
  size_t q = path.find('?');
  if (path.substr(0, q) != kKlinesPath) {
    return Status::Usage("unknown path '" + std::string(path.substr(0, q)) + "'");
  }
  KlinesRequest r;
  r.start_ms = -1;
  r.end_ms = -1;
  std::string_view rest = q == std::string_view::npos ? "" : path.substr(q + 1);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view item = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? "" : rest.substr(amp + 1);
    size_t eq = item.find('=');
    std::string_view key = item.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    if (key == "symbol") {
      r.symbol = std::string(value);
    } else if (key == "interval") {
      r.interval = std::string(value);
    } else if (key == "startTime" || key == "endTime" || key == "limit") {
      auto v = ParseInt(value);
      if (!v || *v < 0) {
        return Status::Usage("parameter '" + std::string(key) + "' is not a valid integer");
      }
      if (key == "startTime") r.start_ms = *v;
      if (key == "endTime") r.end_ms = *v;
      if (key == "limit") {
        if (*v < 1 || *v > kMaxKlines) return Status::Usage("limit must be in [1, 1000]");
        r.limit = static_cast<int>(*v);
      }
    }
  }
  if (r.symbol.empty()) return Status::Usage("mandatory parameter 'symbol' was not sent");
  if (!TimeframeMs(r.interval)) return Status::Usage("invalid interval '" + r.interval + "'");
  return r;
}

bool IsPlainDecimal(std::string_view text) {
  if (text.empty() || text.size() > 40) return false;
  bool digit = false, point = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  return digit;
}

Result<std::vector<Candle>> ParseKlines(std::string_view body) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    return Status::Source("the answer is not a JSON array of candles: " + Excerpt(body));
  }
  std::vector<Candle> out;
  out.reserve(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& k = doc[i];
    const std::string where = "candle " + std::to_string(i);
    if (!k.is_array() || k.size() < 6 || !k[0].is_number_integer()) {
      return Status::Source(where + ": not [openTime, open, high, low, close, volume, ...]");
    }
    Candle c;
    c.open_ms = k[0].get<int64_t>();
    std::string* fields[] = {&c.open, &c.high, &c.low, &c.close, &c.volume};
    for (size_t f = 0; f < 5; ++f) {
      if (!k[f + 1].is_string() || !IsPlainDecimal(k[f + 1].get_ref<const std::string&>())) {
        return Status::Source(where + ": field " + std::to_string(f + 1) +
                              " is not a decimal string");
      }
      *fields[f] = k[f + 1].get<std::string>();
    }
    if (!out.empty() && c.open_ms <= out.back().open_ms) {
      return Status::Source(where + ": open times are not ascending");
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<int64_t> ParseServerTime(std::string_view body) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("serverTime") ||
      !doc["serverTime"].is_number_integer() || doc["serverTime"].get<int64_t>() <= 0) {
    return Status::Source("the answer is not {\"serverTime\": <unix ms>}: " + Excerpt(body));
  }
  return doc["serverTime"].get<int64_t>();
}

Client::Client(std::unique_ptr<Transport> transport, gql::RetryPolicy policy, Sleeper* sleeper)
    : transport_(std::move(transport)),
      policy_(std::move(policy)),
      sleeper_(sleeper != nullptr ? sleeper : &DefaultSleeper()),
      backoff_(policy_.base_delay_ms, policy_.max_delay_ms, policy_.jitter_seed) {}

Result<std::vector<Candle>> Client::Klines(const KlinesRequest& request) {
  return GetParsed<std::vector<Candle>>(KlinesPathAndQuery(request), ParseKlines);
}

Result<int64_t> Client::ServerTimeMs() {
  return GetParsed<int64_t>(std::string(kTimePath), ParseServerTime);
}

template <typename T, typename Parse>
Result<T> Client::GetParsed(const std::string& path, Parse parse) {
  const std::string context = transport_->Describe() + ": GET " + path;
  int64_t waited_ms = 0;
  int transport_failures = 0;
  failure_ = Failure{};
  for (int attempt = 1;; ++attempt) {
    if (ExchangeStopped(stop_)) return Status::Cancelled(context + ": stopped");
    if (used_weight_ >= kWeightPauseAt) {
      // Asking on would hit the limit, then a 429, then a ban: let the minute roll over first.
      if (waited_ms + kWeightWindowMs > policy_.budget_ms) {
        failure_ = Failure{true, 0, kWeightWindowMs};
        return Status::Source(context + ": the exchange's request weight is at " +
                              std::to_string(used_weight_) + " of its " +
                              std::to_string(kRequestWeightPerMinute) +
                              " per minute, and waiting for the next minute exceeds the budget");
      }
      ++stats_.retries_by_kind["weight_pause"];
      if (policy_.on_retry) {
        policy_.on_retry({"weight", attempt, kWeightWindowMs,
                          context + ": request weight " + std::to_string(used_weight_) + " of " +
                              std::to_string(kRequestWeightPerMinute) + " per minute"});
      }
      sleeper_->SleepMs(kWeightWindowMs, stop_);
      waited_ms += kWeightWindowMs;
      used_weight_ = 0;
      if (ExchangeStopped(stop_)) return Status::Cancelled(context + ": stopped");
    }
    ++stats_.requests;
    std::string error;
    std::string kind;
    std::optional<int64_t> retry_after;
    bool limited = false;  // counts against transport_attempts
    failure_ = Failure{true, 0, std::nullopt};
    auto response = transport_->Get(path);
    if (response.ok()) {
      if (auto weight = response->Header(kUsedWeightHeader)) {
        int64_t used = 0;
        const auto [end, ec] =
            std::from_chars(weight->data(), weight->data() + weight->size(), used);
        if (ec == std::errc() && end == weight->data() + weight->size()) used_weight_ = used;
      }
    }
    if (!response.ok()) {
      if (response.status().code() == StatusCode::kCancelled) return response.status();
      error = response.status().message();
      kind = "transport";
      limited = true;
    } else if (response->status == 429 || response->status == 418) {
      // Binance: 429 = request weight exceeded, 418 = banned for ignoring 429s; both say how long.
      // Asking again before then lengthens the ban, so the wait is never shortened.
      failure_.http_status = response->status;
      error = "HTTP " + std::to_string(response->status) + " " + Excerpt(response->body);
      kind = "http_" + std::to_string(response->status);
      retry_after = response->retry_after_ms.value_or(policy_.max_retry_after_ms);
      if (*retry_after > policy_.max_retry_after_ms ||
          waited_ms + *retry_after > policy_.budget_ms) {
        failure_.blocked_for_ms = *retry_after;
        return Status::Source(context + ": " + error + " (the exchange asks us to wait " +
                              FormatDuration(*retry_after) + ")");
      }
    } else if (response->status >= 500) {
      failure_.http_status = response->status;
      error = "HTTP " + std::to_string(response->status) + " " + Excerpt(response->body);
      kind = "http";
      limited = true;
    } else if (response->status != 200) {
      // A bad symbol or interval (400 {"code":-1121,"msg":"Invalid symbol."}) fails the same way
      // every time; so does 451 (a location the exchange does not serve), for every request.
      failure_.http_status = response->status;
      failure_.host_wide = (response->status >= 300 && response->status < 400) ||
                           response->status == 451 || response->status == 403 ||
                           response->status == 401 || response->status == 404 ||
                           response->status == 405;
      return Status::Source(context + ": " + gql::DescribeHttpStatus(*response) + " " +
                            Excerpt(response->body));
    } else {
      failure_.http_status = 200;
      Result<T> parsed = parse(response->body);
      if (parsed.ok()) {
        failure_ = Failure{};
        return parsed;
      }
      error = parsed.status().message();
      kind = "malformed";
      limited = true;
    }
    if (limited) ++transport_failures;
    const bool out_of_attempts = (limited && transport_failures >= policy_.transport_attempts) ||
                                 (policy_.max_attempts > 0 && attempt >= policy_.max_attempts);
    int64_t wait = retry_after ? *retry_after : backoff_.DelayMs(attempt);
    if (out_of_attempts || waited_ms + wait > policy_.budget_ms) {
      return Status::Source(context + ": " + error + " (after " + std::to_string(attempt) +
                            (attempt == 1 ? " attempt)" : " attempts)"));
    }
    ++stats_.retries;
    ++stats_.retries_by_kind[kind];
    if (policy_.on_retry) policy_.on_retry({kind, attempt, wait, context + ": " + error});
    sleeper_->SleepMs(wait, stop_);
    waited_ms += wait;
  }
}

}  // namespace predlake::exchange
