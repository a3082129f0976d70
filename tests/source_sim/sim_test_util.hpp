// Helpers shared by the simulated-network tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/time.hpp"
#include "config/config.hpp"
#include "source/sim/subgraph.hpp"

namespace predlake::sim::simtest {

// A small world: starts at `start`, pinned at `now`.
inline config::SimConfig SmallConfig(const std::string& start = "2024-07-25",
                                     const std::string& now = "2024-07-25_06:00") {
  config::SimConfig c;
  c.start = start;
  c.now = now;
  return c;
}

inline int64_t Ms(const std::string& time) {
  Result<int64_t> t = ParseTime(time, 0);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : 0;
}

inline std::shared_ptr<const Engine> MakeEngine(const config::SimConfig& c) {
  Result<std::shared_ptr<const Engine>> e = Engine::Create(c, Ms(c.now));
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? *e : nullptr;
}

// Runs a query through the engine's request handler and parses the answer.
inline nlohmann::json Ask(const Engine& engine, const std::string& query,
                          const nlohmann::json& variables = nullptr) {
  nlohmann::json body = {{"query", query}};
  if (!variables.is_null()) body["variables"] = variables;
  gql::HttpResponse r = engine.Handle(body.dump());
  EXPECT_EQ(r.status, 200) << r.body;
  return nlohmann::json::parse(r.body);
}

inline std::string ErrorOf(const Engine& engine, const std::string& query) {
  nlohmann::json j = Ask(engine, query);
  if (!j.contains("errors")) return "";
  return j["errors"][0]["message"].get<std::string>();
}

}  // namespace predlake::sim::simtest
