#include "web/web.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.hpp"

namespace predlake::web {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadSourceFile(const std::string& rel) {
  std::ifstream in(test_support::SourceDir() + "/" + rel, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(FindAssetTest, EveryAssetWithItsContentType) {
  const struct {
    const char* name;
    const char* type;
  } kWant[] = {{"uplot.js", "text/javascript; charset=utf-8"},
               {"uplot.css", "text/css; charset=utf-8"},
               {"dashboard.js", "text/javascript; charset=utf-8"},
               {"dashboard.css", "text/css; charset=utf-8"}};
  for (const auto& want : kWant) {
    const Asset* a = FindAsset(want.name);
    ASSERT_NE(a, nullptr) << want.name;
    EXPECT_EQ(a->content_type, want.type) << want.name;
    EXPECT_GT(a->body.size(), 100u) << want.name;
    // Static storage: the same entry every time.
    EXPECT_EQ(FindAsset(want.name), a);
  }
}

// The embedded uPlot is the pinned release (cmake/Uplot.cmake): its banner names the version and
// the size is the tarball's file's, byte for byte.
TEST(FindAssetTest, UplotIsThePinnedVersion) {
  const Asset* js = FindAsset("uplot.js");
  ASSERT_NE(js, nullptr);
  EXPECT_THAT(std::string(js->body),
              StartsWith("/*! https://github.com/leeoniya/uPlot (v" PREDLAKE_UPLOT_VERSION ") */"));
  EXPECT_EQ(js->body.size(), static_cast<std::size_t>(PREDLAKE_UPLOT_JS_SIZE));
  EXPECT_THAT(std::string(js->body), HasSubstr("var uPlot=function()"));
  const Asset* css = FindAsset("uplot.css");
  ASSERT_NE(css, nullptr);
  EXPECT_THAT(std::string(css->body), HasSubstr(".uplot"));
}

// Ours are the files of src/web/assets, unchanged (binary-safe embedding: the size matches too).
TEST(FindAssetTest, OursAreTheSourceFiles) {
  for (const char* name : {"dashboard.js", "dashboard.css"}) {
    const Asset* a = FindAsset(name);
    ASSERT_NE(a, nullptr) << name;
    std::string file = ReadSourceFile(std::string("src/web/assets/") + name);
    ASSERT_FALSE(file.empty()) << name;
    EXPECT_EQ(a->body, file) << name;
  }
}

TEST(FindAssetTest, UnknownNamesAreNull) {
  for (const char* name : {"", "uplot", "UPLOT.JS", "uPlot.iife.min.js", "/assets/uplot.js",
                           "../web.hpp", "dashboard.js/", "favicon.ico"}) {
    EXPECT_EQ(FindAsset(name), nullptr) << name;
  }
  EXPECT_EQ(FindAsset(std::string_view("uplot.js\0", 9)), nullptr);
}

}  // namespace
}  // namespace predlake::web
