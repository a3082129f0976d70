#include "source/gql/client.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

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

Client::Client(std::unique_ptr<Transport> transport, RetryPolicy policy, Sleeper* sleeper)
    : transport_(std::move(transport)),
      policy_(policy),
      sleeper_(sleeper != nullptr ? sleeper : &DefaultSleeper()),
      rng_(policy.jitter_seed != 0 ? policy.jitter_seed : std::random_device{}()) {
  policy_.max_attempts = std::max(policy_.max_attempts, 1);
  policy_.graphql_error_attempts =
      std::clamp(policy_.graphql_error_attempts, 1, policy_.max_attempts);
}

int64_t Client::BackoffMs(int retry) {
  // Full jitter over the upper half: spreads concurrent clients without ever retrying at once.
  int64_t ceiling = policy_.base_delay_ms;
  for (int i = 1; i < retry && ceiling < policy_.max_delay_ms; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, policy_.max_delay_ms);
  if (ceiling <= 1) return std::max<int64_t>(ceiling, 0);
  std::uniform_int_distribution<int64_t> dist(ceiling / 2, ceiling);
  return dist(rng_);
}

Result<nlohmann::json> Client::Query(std::string_view query) {
  nlohmann::json request = {{"query", std::string(query)}};
  // Invalid UTF-8 in the query (it can embed ids from earlier answers) must not throw.
  const std::string body = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string who = transport_->Describe();
  int attempts = 0;
  int graphql_failures = 0;
  std::string last_error;
  while (true) {
    if (Stopped(stop_)) return Status::Cancelled(who + ": stopped");
    ++attempts;
    ++stats_.requests;
    bool retryable = true;
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
        last_error = who + ": HTTP " + std::to_string(code) + ": " + Snippet(response->body);
      } else if (code < 200 || code >= 300) {
        return Status::Source(who + ": HTTP " + std::to_string(code) + ": " +
                              Snippet(response->body));
      } else {
        nlohmann::json doc = nlohmann::json::parse(response->body, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) {
          last_error = who + ": malformed JSON response (" + std::to_string(response->body.size()) +
                       " bytes): " + Snippet(response->body);
        } else if (auto errors = doc.find("errors");
                   errors != doc.end() && errors->is_array() && !errors->empty()) {
          ++graphql_failures;
          last_error = who + ": GraphQL error: " + FirstErrorMessage(*errors);
          if (graphql_failures >= policy_.graphql_error_attempts) retryable = false;
        } else if (auto data = doc.find("data"); data == doc.end() || !data->is_object()) {
          last_error = who + ": response has no `data` object: " + Snippet(response->body);
        } else {
          return std::move(*data);
        }
      }
    }
    if (!retryable || attempts >= policy_.max_attempts) {
      return Status::Source(last_error + " (after " + std::to_string(attempts) +
                            (attempts == 1 ? " attempt)" : " attempts)"));
    }
    int64_t wait =
        retry_after ? std::min(*retry_after, policy_.max_retry_after_ms) : BackoffMs(attempts);
    ++stats_.retries;
    stats_.slept_ms += wait;
    sleeper_->SleepMs(wait, stop_);
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
