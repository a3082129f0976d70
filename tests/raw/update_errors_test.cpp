#include <gtest/gtest.h>

#include <functional>

#include "raw/update.hpp"
#include "raw_test_util.hpp"

namespace predlake::raw {
namespace {

using rawtest::Ms;
using rawtest::TempDir;
using rawtest::WatermarkOf;

// Passes requests to the in-process sim and lets the test rewrite answers (or replace them).
class EditingTransport final : public gql::Transport {
 public:
  using Edit = std::function<void(const std::string& request, gql::HttpResponse& response)>;
  EditingTransport(std::shared_ptr<const sim::Engine> engine, Edit edit)
      : inner_(std::move(engine)), edit_(std::move(edit)) {}
  Result<gql::HttpResponse> Post(const std::string& body) override {
    auto r = inner_.Post(body);
    if (r.ok()) edit_(body, *r);
    return r;
  }
  std::string Describe() const override { return "edited sim"; }

 private:
  sim::InProcessTransport inner_;
  Edit edit_;
};

struct Fixture {
  TempDir dir;
  config::SimConfig world = rawtest::SmallWorld();
  std::shared_ptr<const sim::Engine> engine = rawtest::MakeEngine(world);
  std::unique_ptr<lake::Lake> lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;

  UpdateOptions Options() {
    UpdateOptions o;
    o.start_ms = Ms(world.start);
    o.end_ms = Ms(world.now);
    o.sleeper = &sleep;
    o.page_size = 100;
    o.max_pages_per_commit = 1;
    return o;
  }
  Result<UpdateReport> Run(EditingTransport::Edit edit, UpdateOptions o) {
    auto engine_copy = engine;
    return rawtest::RunUpdate(
        *lake, o,
        [engine_copy, edit](const TransportUse&) -> std::unique_ptr<gql::Transport> {
          return std::make_unique<EditingTransport>(engine_copy, edit);
        },
        nullptr);
  }
  Result<UpdateReport> Run(EditingTransport::Edit edit) { return Run(std::move(edit), Options()); }
  std::string LastRunStatus() {
    auto r = lake->conn().Query(
        "SELECT status || ': ' || coalesce(error, '') FROM predlake_runs ORDER BY run_id DESC "
        "LIMIT 1",
        "t");
    return r.ok() ? *r->ToText()[0][0] : "";
  }
};

// Rewrites the JSON of the records of `entity` in the third page of that table.
EditingTransport::Edit EditThirdPage(const std::string& entity,
                                     std::function<void(nlohmann::json& record)> edit) {
  auto pages = std::make_shared<int>(0);
  return [entity, edit, pages](const std::string& request, gql::HttpResponse& response) {
    if (request.find(entity) == std::string::npos || response.status != 200) return;
    if (++*pages != 3) return;
    nlohmann::json doc = nlohmann::json::parse(response.body);
    edit(doc["data"]["b"][5]);
    response.body = doc.dump();
  };
}

TEST(RawUpdateErrorsTest, MissingFieldNamesTableWindowPageAndRecord) {
  Fixture f;
  std::string id;
  auto r = f.Run(EditThirdPage("predictPayouts", [&](nlohmann::json& rec) {
    id = rec["id"];
    rec["prediction"].erase("stake");
  }));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kSource);
  EXPECT_EQ(r.status().exit_status(), 3);
  const std::string& m = r.status().message();
  EXPECT_EQ(
      m, "pdr_payouts [2024-07-25T00:00:00Z, 2024-07-25T05:59:30Z) page 3: predictPayouts record " +
             id + ": field `prediction.stake` is missing or null");
  EXPECT_EQ(f.LastRunStatus(), "failed: " + m);
  // Two pages were stored: the watermark stays where they end, and reruns complete the table.
  int64_t w = WatermarkOf(*f.lake, "pdr_payouts");
  EXPECT_GT(w, Ms(f.world.start));
  EXPECT_LT(w, Ms(f.world.now) - f.world.indexing_lag_ms);
  auto stored = f.lake->conn().QueryInt("SELECT count(*) FROM pdr_payouts", "t");
  EXPECT_EQ(**stored, 200);
  ASSERT_TRUE(f.Run([](const std::string&, gql::HttpResponse&) {}).ok());
  rawtest::ExpectEqualsDump(*f.lake, *f.engine);
}

TEST(RawUpdateErrorsTest, WrongTypesAreSourceErrors) {
  struct Case {
    std::string entity, field;
    nlohmann::json value;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"predictPredictions", "stake", 1.5, "field `stake` should be a decimal string, got number"},
      {"predictPredictions", "stake", "0.1234567890123456789",
       "field `stake` \"0.1234567890123456789\" needs 19 fractional digits"},

      {"predictPredictions", "timestamp", "soon", "field `timestamp` should be an integer"},
      {"predictTrueVals", "trueValue", "yes", "field `trueValue` should be a boolean, got string"},
      {"predictSlots", "trueValues", 3, "field `trueValues` should be a list"},

      {"predictPredictions", "id", 7, "record (no id): field `id` should be a string"},
  };
  for (const Case& c : cases) {
    Fixture f;
    auto r = f.Run(EditThirdPage(c.entity, [&](nlohmann::json& rec) { rec[c.field] = c.value; }));
    ASSERT_FALSE(r.ok()) << c.entity << "." << c.field;
    EXPECT_EQ(r.status().code(), StatusCode::kSource);
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("page 3"), std::string::npos) << r.status().message();
  }
}

TEST(RawUpdateErrorsTest, UnknownContract) {
  Fixture f;
  auto r = f.Run(EditThirdPage("predictTrueVals", [](nlohmann::json& rec) {
    rec["slot"]["predictContract"]["id"] = "0xdead";
  }));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "references contract 0xdead, which is not among the predictContracts"),
            std::string::npos)
      << r.status().message();
}

TEST(RawUpdateErrorsTest, OutOfOrderOrOutOfWindowRecordsAreRefused) {
  Fixture f;
  auto r = f.Run(
      EditThirdPage("predictPredictions", [](nlohmann::json& rec) { rec["timestamp"] = 1000; }));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("timestamp 1000 is outside the requested range"),
            std::string::npos)
      << r.status().message();

  Fixture g;
  auto pages = std::make_shared<int>(0);
  auto r2 = g.Run([pages](const std::string& request, gql::HttpResponse& response) {
    if (request.find("predictPayouts") == std::string::npos || ++*pages != 2) return;
    nlohmann::json doc = nlohmann::json::parse(response.body);
    std::swap(doc["data"]["b"][3], doc["data"]["b"][7]);
    response.body = doc.dump();
  });
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("records are not in (timestamp, id) order"),
            std::string::npos)
      << r2.status().message();
}

TEST(RawUpdateErrorsTest, ClientErrorFailsAtOnceAndHeadErrorsAreNamed) {
  Fixture f;
  auto r = f.Run([](const std::string& request, gql::HttpResponse& response) {
    if (request.find("predictSubscriptions") == std::string::npos) return;
    response = gql::HttpResponse{404, "subgraph not found", std::nullopt};
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "pdr_subscriptions [2024-07-25T00:00:00Z, 2024-07-25T05:59:30Z) page 1: edited sim: "
            "HTTP 404: subgraph not found");
  EXPECT_EQ(f.sleep.total.load(), 0);
  EXPECT_FALSE(f.lake->GetWatermark("pdr_subscriptions")->has_value());

  Fixture g;
  auto r2 = g.Run([](const std::string& request, gql::HttpResponse& response) {
    if (request.find("_meta") != std::string::npos) response.body = R"({"data":{"_meta":{}}})";
  });
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(),
            "reading the indexed head: _meta: field `_meta.block.number` is missing or null");
  EXPECT_EQ(g.LastRunStatus(), "failed: " + r2.status().message());
}

TEST(RawUpdateErrorsTest, CancelStopsTheRunAsAborted) {
  Fixture f;
  std::atomic<bool> cancel{false};
  UpdateOptions o = f.Options();
  o.cancel = &cancel;
  auto pages = std::make_shared<int>(0);
  auto r = f.Run(
      [&cancel, pages](const std::string& request, gql::HttpResponse&) {
        if (request.find("predictPredictions") != std::string::npos && ++*pages == 4) {
          cancel = true;
        }
      },
      o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(f.LastRunStatus().rfind("aborted", 0), 0u) << f.LastRunStatus();
  ASSERT_TRUE(f.Run([](const std::string&, gql::HttpResponse&) {}).ok());
  rawtest::ExpectEqualsDump(*f.lake, *f.engine);
}

TEST(RawUpdateErrorsTest, UnknownTableAndBrokenFactory) {
  Fixture f;
  UpdateOptions o = f.Options();
  o.tables = {"pdr_nothing"};
  auto r = f.Run([](const std::string&, gql::HttpResponse&) {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);

  auto r2 = rawtest::RunUpdate(
      *f.lake, f.Options(), [](const TransportUse&) { return std::unique_ptr<gql::Transport>(); },
      nullptr);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().code(), StatusCode::kInternal);
}

TEST(RawUpdateErrorsTest, SelectedTablesOnly) {
  Fixture f;
  UpdateOptions o = f.Options();
  o.tables = {"pdr_truevals"};
  auto r = f.Run([](const std::string&, gql::HttpResponse&) {}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tables.size(), 1u);
  EXPECT_TRUE(f.lake->GetWatermark("pdr_truevals")->has_value());
  EXPECT_FALSE(f.lake->GetWatermark("pdr_predictions")->has_value());
}

}  // namespace
}  // namespace predlake::raw

namespace predlake::raw {
namespace {

TEST(RawUpdateErrorsTest, AnEventStoredUnderAnotherTimestampFallsBackToConflictChecks) {
  Fixture f;
  // Store one payout the sim will deliver, but at a time before the window, where the fast path
  // does not expect it.
  auto first = f.Run([](const std::string&, gql::HttpResponse&) {},
                     [&] {
                       UpdateOptions o = f.Options();
                       o.tables = {"pdr_payouts"};
                       o.end_ms = Ms("2024-07-25_03:00");
                       return o;
                     }());
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto moved =
      f.lake->conn().Query("SELECT ID FROM pdr_payouts ORDER BY timestamp DESC, ID LIMIT 1", "t");
  ASSERT_TRUE(moved.ok());
  std::string id = *moved->ToText()[0][0];
  ASSERT_TRUE(
      f.lake->conn()
          .Execute("UPDATE pdr_payouts SET timestamp = 1000 WHERE ID = " + duck::QuoteString(id),
                   "t")
          .ok());
  ASSERT_TRUE(f.lake->conn()
                  .Execute("DELETE FROM pdr_payouts WHERE timestamp >= " +
                               std::to_string(Ms("2024-07-25_02:00")) + " AND ID <> " +
                               duck::QuoteString(id),
                           "t")
                  .ok());
  ASSERT_TRUE(
      f.lake->SetWatermark("pdr_payouts", {Ms(f.world.start), Ms("2024-07-25_02:00")}, 0).ok());
  UpdateOptions o = f.Options();
  o.tables = {"pdr_payouts"};
  auto r = f.Run([](const std::string&, gql::HttpResponse&) {}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto dump = rawtest::SimRows(*f.engine, "pdr_payouts", r->end_ms);
  auto count = f.lake->conn().QueryInt("SELECT count(*) FROM pdr_payouts", "t");
  EXPECT_EQ(**count, static_cast<int64_t>(dump.size()));
  auto ts = f.lake->conn().QueryInt(
      "SELECT timestamp FROM pdr_payouts WHERE ID = " + duck::QuoteString(id), "t");
  EXPECT_EQ(**ts, 1000);
}

}  // namespace
}  // namespace predlake::raw

namespace predlake::raw {
namespace {

TEST(RawUpdateErrorsTest, AFetchThatIsAStepLeavesTheRunRunning) {
  Fixture f;
  auto run = f.lake->BeginRun("update");
  ASSERT_TRUE(run.ok());
  UpdateOptions o = f.Options();
  o.finishes_run = false;
  auto r = Update(
      *f.lake, *run, o,
      [engine = f.engine](const TransportUse&) -> std::unique_ptr<gql::Transport> {
        return std::make_unique<sim::InProcessTransport>(engine);
      },
      nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->run_id, run->id());
  EXPECT_EQ(f.LastRunStatus(), "running: ");
  auto marked = f.lake->conn().QueryInt(
      "SELECT count(*) FROM predlake_watermarks WHERE run_id = " + std::to_string(run->id()), "t");
  EXPECT_EQ(**marked, 5);
  // The counts and the detail (under "raw") are on the run for the next step to record.
  EXPECT_EQ(run->tables().size(), 5u);
  EXPECT_EQ(run->detail()["raw"]["head_ms"], r->head_ms);
  EXPECT_EQ(run->detail()["raw"]["contracts"], r->contracts);
  ASSERT_TRUE(run->Finish().ok());
  EXPECT_EQ(f.LastRunStatus(), "succeeded: ");
}

TEST(RawUpdateErrorsTest, AFailedFetchRecordsWhatItDid) {
  Fixture f;
  auto run = f.lake->BeginRun("update");
  ASSERT_TRUE(run.ok());
  UpdateOptions o = f.Options();
  o.finishes_run = false;
  auto r = Update(
      *f.lake, *run, o, [](const TransportUse&) { return std::unique_ptr<gql::Transport>(); },
      nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(run->ended());
  EXPECT_EQ(f.LastRunStatus().rfind("failed: ", 0), 0u) << f.LastRunStatus();
  auto rows = f.lake->conn().QueryInt(
      "SELECT count(*) FROM predlake_run_tables WHERE run_id = " + std::to_string(run->id()), "t");
  EXPECT_EQ(**rows, 5);
}

}  // namespace
}  // namespace predlake::raw

namespace predlake::raw {
namespace {

TEST(RawUpdateMetaTest, ADeploymentSwitchedDuringARunStopsThatRun) {
  Fixture f;
  // Every page is pinned to the head's deployment too: once the name points at another deployment
  // (after a few pages), the run stops there with one line naming both.
  auto pages = std::make_shared<int>(0);
  auto switched = [pages](const std::string& request, gql::HttpResponse& response) {
    if (request.find(gql::kPinMetaAlias) == std::string::npos) return;
    EXPECT_NE(request.find("deployment block"), std::string::npos) << request;
    if (++*pages <= 3) return;
    nlohmann::json doc = nlohmann::json::parse(response.body);
    doc["data"][gql::kPinMetaAlias]["deployment"] = "QmNew";
    response.body = doc.dump();
  };
  auto first = f.Run(switched);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), StatusCode::kSource);
  EXPECT_NE(first.status().message().find(
                "deployment changed during the run, from predlake-sim to QmNew"),
            std::string::npos)
      << first.status().message();
  EXPECT_EQ(f.LastRunStatus().rfind("failed: ", 0), 0u) << f.LastRunStatus();
  // The next run reads the new deployment at its head and completes, saying that it changed.
  auto second = f.Run([](const std::string& request, gql::HttpResponse& response) {
    nlohmann::json doc = nlohmann::json::parse(response.body);
    if (request.find("hasIndexingErrors") != std::string::npos) {
      doc["data"]["_meta"]["deployment"] = "QmNew";
    } else if (doc["data"].contains(gql::kPinMetaAlias)) {
      doc["data"][gql::kPinMetaAlias]["deployment"] = "QmNew";
    }
    response.body = doc.dump();
  });
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->deployment, "QmNew");
  EXPECT_EQ(second->previous_deployment, "predlake-sim");
  EXPECT_EQ(**f.lake->GetMeta(lake::kMetaDeployment), "QmNew");
}

TEST(RawUpdateMetaTest, DeploymentIsRecordedAndAChangeReported) {
  Fixture f;
  auto first = f.Run([](const std::string&, gql::HttpResponse&) {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->deployment, "predlake-sim");
  EXPECT_FALSE(first->previous_deployment);
  EXPECT_TRUE(first->warnings.empty());
  EXPECT_EQ(**f.lake->GetMeta(lake::kMetaDeployment), "predlake-sim");

  // The subgraph name now points at another deployment, which has indexing errors.
  auto second = f.Run([](const std::string& request, gql::HttpResponse& response) {
    nlohmann::json doc = nlohmann::json::parse(response.body);
    if (request.find("hasIndexingErrors") != std::string::npos) {
      doc["data"]["_meta"]["deployment"] = "QmNew";
      doc["data"]["_meta"]["hasIndexingErrors"] = true;
    } else if (doc["data"].contains(gql::kPinMetaAlias)) {
      doc["data"][gql::kPinMetaAlias]["deployment"] = "QmNew";
    }
    response.body = doc.dump();
  });
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->previous_deployment, "predlake-sim");
  EXPECT_TRUE(second->has_indexing_errors);
  ASSERT_EQ(second->warnings.size(), 2u);
  EXPECT_NE(second->warnings[0].find("indexing errors"), std::string::npos);
  EXPECT_NE(second->warnings[1].find("deployment changed from predlake-sim to QmNew"),
            std::string::npos);
  EXPECT_EQ(**f.lake->GetMeta(lake::kMetaDeployment), "QmNew");
  EXPECT_EQ(**f.lake->GetMeta(lake::kMetaPreviousDeployment), "predlake-sim");
  EXPECT_TRUE(*f.lake->GetMeta(lake::kMetaDeploymentChangedAtMs));
  auto detail = f.lake->conn().Query(
      "SELECT json_extract_string(detail, '$.deployment_changed_from'), "
      "json_extract_string(detail, '$.has_indexing_errors') FROM predlake_runs ORDER BY run_id "
      "DESC LIMIT 1",
      "t");
  ASSERT_TRUE(detail.ok());
  auto rows = detail->ToText();
  EXPECT_EQ(rows[0][0], "predlake-sim");
  EXPECT_EQ(rows[0][1], "true");
}

}  // namespace
}  // namespace predlake::raw

namespace predlake::raw {
namespace {

TEST(RawUpdateErrorsTest, AContractWhoseOwnFieldsCannotBeStoredIsSetAsideAlone) {
  // Three contracts of the world answered oddly: NFT data that is not UTF-8, a secondsPerEpoch
  // beyond int64, a megabyte-long token name in place of a pair. Each is set aside with one
  // warning naming why; its events are stored (without the field); every other contract goes on.
  Fixture f;
  std::vector<std::string> odd;
  auto edit = [&odd](const std::string& request, gql::HttpResponse& response) {
    if (request.find("predictContracts") == std::string::npos || response.status != 200) return;
    nlohmann::json doc = nlohmann::json::parse(response.body);
    auto& list = doc["data"]["predictContracts"];
    if (!list.is_array() || list.size() < 4) return;
    odd = {list[0]["id"], list[1]["id"], list[2]["id"]};
    for (auto& kv : list[0]["token"]["nft"]["nftData"]) {
      if (kv["key"] == std::string(lake::kNftPairKey)) kv["value"] = "0x42ff2f55";  // "B\xff/U"
    }
    list[1]["secondsPerEpoch"] = "99999999999999999999";
    list[2]["token"]["nft"] = nullptr;
    list[2]["token"]["name"] = std::string(1 << 20, 'x');
    response.body = doc.dump();
  };
  auto r = f.Run(edit);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(odd.size(), 3u);
  std::map<std::string, std::string> why;
  for (const UpdateReport::Skipped& s : r->skipped_contracts) why[s.id] = s.reason;
  EXPECT_NE(why[odd[0]].find("pair is not valid UTF-8"), std::string::npos) << why[odd[0]];
  EXPECT_NE(why[odd[1]].find("secondsPerEpoch"), std::string::npos) << why[odd[1]];
  EXPECT_NE(why[odd[2]].find("pair is 1048576 bytes long"), std::string::npos) << why[odd[2]];
  EXPECT_EQ(SkippedContractWarnings(*r).size(), r->skipped_contracts.size());
  // The others are stored; the odd ones' events too, without the field that cannot be.
  EXPECT_EQ(r->contracts + static_cast<int64_t>(r->skipped_contracts.size()),
            **f.lake->conn().QueryInt("SELECT count(DISTINCT contract) FROM pdr_predictions", "t"));
  EXPECT_EQ(**f.lake->conn().QueryInt("SELECT count(*) FROM pdr_predictions WHERE contract = '" +
                                          odd[0] + "' AND pair IS NULL",
                                      "t"),
            **f.lake->conn().QueryInt(
                "SELECT count(*) FROM pdr_predictions WHERE contract = '" + odd[0] + "'", "t"));
  EXPECT_GT(**f.lake->conn().QueryInt(
                "SELECT count(*) FROM pdr_predictions WHERE contract = '" + odd[0] + "'", "t"),
            0);
  EXPECT_EQ(**f.lake->conn().QueryInt("SELECT count(*) FROM pdr_contracts WHERE ID IN ('" + odd[0] +
                                          "', '" + odd[1] + "', '" + odd[2] + "')",
                                      "t"),
            0);
  for (std::string_view t : lake::kRawTables) {
    EXPECT_EQ(rawtest::WatermarkOf(*f.lake, std::string(t)), r->head_ms) << t;
  }
}

}  // namespace
}  // namespace predlake::raw
