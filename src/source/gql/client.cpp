#include "source/gql/client.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "common/time.hpp"

namespace predlake::gql {
namespace {

constexpr size_t kSnippetBytes = 200;

// The start of a body for an error message, on one line.
std::string Snippet(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, kSnippetBytes)) {
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  if (body.size() > kSnippetBytes) out += "...";
  return out;
}

bool Stopped(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// The message of the first GraphQL error, or a dump of it when it has none.
std::string FirstErrorMessage(const nlohmann::json& errors) {
  const nlohmann::json& first = errors.front();
  if (first.is_object()) {
    auto it = first.find("message");
    if (it != first.end() && it->is_string()) return it->get<std::string>();
  }
  return Snippet(first.dump());
}

}  // namespace

ErrorKind ClassifyGraphqlError(std::string_view message) {
  auto has = [&](std::string_view part) { return message.find(part) != std::string_view::npos; };
  if (has("has only indexed up to") || has("is therefore not yet available")) {
    return ErrorKind::kBehind;
  }
  if (has("service is overloaded")) return ErrorKind::kThrottled;
  if (has("query is too expensive")) return ErrorKind::kTooExpensive;
  if (has("thereby exceeds the limit of") || has("the result size of")) return ErrorKind::kTooLarge;
  if (has("Query timed out") || has("statement timeout")) return ErrorKind::kTimeout;
  if (has("indexing_error") || has("indexing error")) return ErrorKind::kIndexing;
  if (has("Store error") || has("store error") || has("chain was reorganized") ||
      has("database unavailable")) {
    return ErrorKind::kStore;
  }
  // A deployment being switched or re-assigned answers "deployment ... does not exist" for a
  // moment: transient, like a store error.
  if (has("deployment") && has("does not exist")) return ErrorKind::kStore;
  // A server whose largest `first` is below ours ("The `first` argument must be between 0 and 100,
  // but is 1000"): the page is asked again smaller, down to what it allows.
  if (has("`first` argument must be between")) return ErrorKind::kTooLarge;
  if (has("has no field") || has("Unknown argument") || has("Invalid value") ||
      has("must be between") || has("does not exist") || has("Failed to decode") ||
      has("Null value resolved for non-null field") || has("Unknown type")) {
    return ErrorKind::kPermanent;
  }
  return ErrorKind::kOtherGraphql;
}

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kTransport:
      return "transport";
    case ErrorKind::kHttp:
      return "http";
    case ErrorKind::kMalformed:
      return "malformed";
    case ErrorKind::kThrottled:
      return "throttled";
    case ErrorKind::kTooExpensive:
      return "too_expensive";
    case ErrorKind::kTooLarge:
      return "too_large";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kIndexing:
      return "indexing_error";
    case ErrorKind::kBehind:
      return "behind";
    case ErrorKind::kStore:
      return "store";
    case ErrorKind::kNullHead:
      return "null_head_timestamp";
    case ErrorKind::kPermanent:
      return "permanent";
    case ErrorKind::kDeploymentChanged:
      return "deployment_changed";
    case ErrorKind::kOtherGraphql:
      return "graphql";
  }
  return "unknown";
}

Client::Client(std::unique_ptr<Transport> transport, RetryPolicy policy, Sleeper* sleeper)
    : transport_(std::move(transport)),
      policy_(policy),
      sleeper_(sleeper != nullptr ? sleeper : &DefaultSleeper()),
      backoff_(policy_.base_delay_ms, policy_.max_delay_ms, policy_.jitter_seed) {
  policy_.max_attempts = std::max(policy_.max_attempts, 0);
  policy_.graphql_error_attempts = std::max(policy_.graphql_error_attempts, 1);
  policy_.budget_ms = std::max<int64_t>(policy_.budget_ms, 0);
}

void Client::CountRetry(ErrorKind kind, int retry, int64_t wait_ms, std::string_view error) {
  ++stats_.retries;
  ++stats_.retries_by_kind[std::string(ErrorKindName(kind))];
  stats_.slept_ms += wait_ms;
  if (policy_.on_retry) policy_.on_retry({ErrorKindName(kind), retry, wait_ms, error});
}

bool Client::WaitToRetry(ErrorKind kind, int retry, int64_t& waited_ms, std::string_view why) {
  if (Stopped(stop_)) return false;
  const int64_t wait = backoff_.DelayMs(retry);
  if (waited_ms + wait > policy_.budget_ms) return false;
  waited_ms += wait;
  CountRetry(kind, retry, wait, why);
  sleeper_->SleepMs(wait, stop_);
  return !Stopped(stop_);
}

Result<nlohmann::json> Client::Query(std::string_view query, bool shrinkable) {
  std::string text(query);
  if (min_block_) {
    ASSIGN_OR_RETURN(text, PinQueryToBlock(query, *min_block_, deployment_.has_value()));
  }
  nlohmann::json request = {{"query", text}};
  // Invalid UTF-8 in the query (it can embed ids from earlier answers) must not throw.
  const std::string body = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string who = transport_->Describe();
  int attempts = 0;
  int other_graphql_failures = 0;
  int transport_failures = 0;
  int64_t waited_ms = 0;
  std::string last_error;
  last_error_kind_.reset();
  while (true) {
    if (Stopped(stop_)) return Status::Cancelled(who + ": stopped");
    ++attempts;
    ++stats_.requests;
    bool retryable = true;
    ErrorKind kind = ErrorKind::kTransport;
    std::optional<int64_t> retry_after;
    Result<HttpResponse> response = transport_->Post(body);
    if (!response.ok()) {
      if (response.status().code() == StatusCode::kCancelled) return response.status();
      last_error = response.status().message();  // names the URL by the Transport contract
    } else {
      stats_.bytes_received += static_cast<int64_t>(response->body.size());
      const int code = response->status;
      retry_after = response->retry_after_ms;
      if (code == 429 || code >= 500) {
        kind = code == 429 ? ErrorKind::kThrottled : ErrorKind::kHttp;
        last_error = who + ": HTTP " + std::to_string(code) + ": " + Snippet(response->body);
      } else if (code < 200 || code >= 300) {
        last_error_kind_ = ErrorKind::kPermanent;
        return Status::Source(who + ": " + DescribeHttpStatus(*response) + ": " +
                              Snippet(response->body));
      } else {
        nlohmann::json doc = nlohmann::json::parse(response->body, nullptr, false);
        kind = ErrorKind::kMalformed;
        if (doc.is_discarded() || !doc.is_object()) {
          last_error = who + ": malformed JSON response (" + std::to_string(response->body.size()) +
                       " bytes): " + Snippet(response->body);
        } else if (auto errors = doc.find("errors");
                   errors != doc.end() && errors->is_array() && !errors->empty()) {
          const std::string message = FirstErrorMessage(*errors);
          kind = ClassifyGraphqlError(message);
          last_error = who + ": GraphQL error: " + message;
          if (kind == ErrorKind::kPermanent) retryable = false;
          if (kind == ErrorKind::kOtherGraphql &&
              ++other_graphql_failures >= policy_.graphql_error_attempts) {
            retryable = false;
          }
          if (shrinkable && (kind == ErrorKind::kTooLarge || kind == ErrorKind::kTimeout)) {
            last_error_kind_ = kind;
            return Status::Source(last_error + " (asking for a smaller page)");
          }
        } else if (auto data = doc.find("data"); data == doc.end() || !data->is_object()) {
          last_error = who + ": response has no `data` object: " + Snippet(response->body);
        } else if (!min_block_) {
          return std::move(*data);
        } else {
          // The pin's own _meta says which block the answer is from: never older than the pin.
          auto pin = data->find(kPinMetaAlias);
          const nlohmann::json* number = nullptr;
          if (pin != data->end() && pin->is_object()) {
            auto block = pin->find("block");
            if (block != pin->end() && block->is_object()) {
              auto n = block->find("number");
              if (n != block->end() && n->is_number_integer()) number = &*n;
            }
          }
          const nlohmann::json* deployment = nullptr;
          if (deployment_ && pin != data->end() && pin->is_object()) {
            auto d = pin->find("deployment");
            if (d != pin->end() && d->is_string()) deployment = &*d;
          }
          if (deployment != nullptr && deployment->get_ref<const std::string&>() != *deployment_) {
            last_error_kind_ = ErrorKind::kDeploymentChanged;
            return Status::Source(
                who + ": the subgraph's deployment changed during the run, from " + *deployment_ +
                " to " + deployment->get<std::string>() +
                " (a new version deployed, or the name pointed elsewhere): nothing past this "
                "point is stored from this run; the next run starts on the new deployment");
          }
          if (number == nullptr) {
            last_error = who + ": the pinned answer lacks `" + std::string(kPinMetaAlias) +
                         ".block.number`: " + Snippet(response->body);
          } else if (number->get<int64_t>() < *min_block_) {
            kind = ErrorKind::kBehind;
            last_error = who + ": answered at block " + std::to_string(number->get<int64_t>()) +
                         ", before the pinned block " + std::to_string(*min_block_);
          } else {
            data->erase(std::string(kPinMetaAlias));
            return std::move(*data);
          }
        }
      }
    }
    last_error_kind_ = kind;
    if ((kind == ErrorKind::kTransport || kind == ErrorKind::kHttp ||
         kind == ErrorKind::kMalformed) &&
        ++transport_failures >= policy_.transport_attempts) {
      retryable = false;
    }
    const bool out_of_attempts = policy_.max_attempts > 0 && attempts >= policy_.max_attempts;
    int64_t wait = 0;
    bool budget_used_up = false;
    if (retryable && !out_of_attempts) {
      wait = retry_after ? std::min(*retry_after, policy_.max_retry_after_ms)
                         : backoff_.DelayMs(attempts);
      budget_used_up = waited_ms + wait > policy_.budget_ms;
    }
    if (!retryable || out_of_attempts || budget_used_up) {
      return Status::Source(
          last_error + " (after " + std::to_string(attempts) +
          (attempts == 1 ? " attempt" : " attempts") +
          (budget_used_up ? " in " + FormatDuration(waited_ms) + ", the retry budget)" : ")"));
    }
    waited_ms += wait;
    CountRetry(kind, attempts, wait, last_error);
    sleeper_->SleepMs(wait, stop_);
  }
}

namespace {

void SkipSpace(std::string_view q, size_t& i) {
  while (i < q.size() && (std::isspace(static_cast<unsigned char>(q[i])) || q[i] == ',')) ++i;
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Moves `i` past the balanced group opening at q[i] ('(' or '{'), strings included; false when
// it does not close.
bool SkipGroup(std::string_view q, size_t& i) {
  const char open = q[i], close = open == '(' ? ')' : '}';
  int depth = 0;
  for (; i < q.size(); ++i) {
    const char c = q[i];
    if (c == '"') {
      for (++i; i < q.size() && q[i] != '"'; ++i) {
        if (q[i] == '\\') ++i;
      }
      if (i >= q.size()) return false;
    } else if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      ++i;
      return true;
    }
  }
  return false;
}

}  // namespace

Result<std::string> PinQueryToBlock(std::string_view q, int64_t number, bool with_deployment) {
  const std::string arg = "block: {number_gte: " + std::to_string(number) + "}";
  auto bad = [&]() { return Status::Internal("cannot pin the query to a block: " + Snippet(q)); };
  std::string out;
  size_t i = 0;
  SkipSpace(q, i);
  if (i >= q.size() || q[i] != '{') return bad();
  out.append(q.substr(0, ++i));
  while (true) {
    size_t from = i;
    SkipSpace(q, i);
    if (i >= q.size()) return bad();
    if (q[i] == '}') {
      out.append(q.substr(from, i - from));
      out += std::string(" ") + std::string(kPinMetaAlias) + ": _meta(" + arg + ") { " +
             (with_deployment ? "deployment " : "") + "block { number } } ";
      out.append(q.substr(i));
      return out;
    }
    // [alias:] name
    size_t name_end = i;
    while (name_end < q.size() && IsNameChar(q[name_end])) ++name_end;
    if (name_end == i) return bad();
    size_t j = name_end;
    SkipSpace(q, j);
    if (j < q.size() && q[j] == ':') {
      ++j;
      SkipSpace(q, j);
      name_end = j;
      while (name_end < q.size() && IsNameChar(q[name_end])) ++name_end;
      if (name_end == j) return bad();
    }
    out.append(q.substr(from, name_end - from));
    j = name_end;
    SkipSpace(q, j);
    if (j < q.size() && q[j] == '(') {
      out.append(q.substr(name_end, j + 1 - name_end));
      out += arg + ", ";
      size_t args = j;
      if (!SkipGroup(q, args)) return bad();
      out.append(q.substr(j + 1, args - j - 1));
      j = args;
    } else {
      out += "(" + arg + ")";
      out.append(q.substr(name_end, j - name_end));
    }
    size_t sel = j;
    SkipSpace(q, sel);
    if (sel < q.size() && q[sel] == '{') {
      if (!SkipGroup(q, sel)) return bad();
    }
    out.append(q.substr(j, sel - j));
    i = sel;
  }
}

std::string QuoteGraphqlString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char* kHex = "0123456789abcdef";
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace predlake::gql
