#include "raw/record.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>

#include "raw/schema.hpp"

namespace predlake::raw {

std::string JsonTypeName(const nlohmann::json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

const nlohmann::json* RecordReader::Find(std::string_view path) const {
  const nlohmann::json* node = &record_;
  while (true) {
    if (!node->is_object()) return nullptr;
    size_t dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    auto it = node->find(key);
    if (it == node->end() || it->is_null()) return nullptr;
    node = &*it;
    if (dot == std::string_view::npos) return node;
    path.remove_prefix(dot + 1);
  }
}

void RecordReader::Fail(std::string_view path, const std::string& what) {
  if (status_.ok()) status_ = Status::Source("field `" + std::string(path) + "` " + what);
}

const nlohmann::json* RecordReader::Require(std::string_view path) {
  if (!status_.ok()) return nullptr;
  const nlohmann::json* v = Find(path);
  if (v == nullptr) Fail(path, "is missing or null");
  return v;
}

std::string RecordReader::String(std::string_view path) {
  const nlohmann::json* v = Require(path);
  if (v == nullptr) return {};
  if (!v->is_string()) {
    Fail(path, "should be a string, got " + JsonTypeName(*v));
    return {};
  }
  return v->get<std::string>();
}

int64_t RecordReader::Int(std::string_view path) {
  const nlohmann::json* v = Require(path);
  if (v == nullptr) return 0;
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    Fail(path, "should be an integer, got " + v->dump() + ", beyond int64");
    return 0;
  }
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    int64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return out;
    Fail(path, "should be an integer, got \"" + s.substr(0, 40) + "\"");
    return 0;
  }
  Fail(path, "should be an integer, got " + JsonTypeName(*v));
  return 0;
}

bool RecordReader::Bool(std::string_view path) {
  const nlohmann::json* v = Require(path);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    Fail(path, "should be a boolean, got " + JsonTypeName(*v));
    return false;
  }
  return v->get<bool>();
}

std::optional<bool> RecordReader::OptionalBool(std::string_view path) {
  if (!status_.ok()) return std::nullopt;
  const nlohmann::json* v = Find(path);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    Fail(path, "should be a boolean, got " + JsonTypeName(*v));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::string RecordReader::Decimal(std::string_view path) {
  const nlohmann::json* v = Require(path);
  if (v == nullptr) return {};
  if (!v->is_string()) {
    Fail(path, "should be a decimal string, got " + JsonTypeName(*v));
    return {};
  }
  const std::string& s = v->get_ref<const std::string&>();
  if (std::string problem = DecimalTextProblem(s); !problem.empty()) {
    Fail(path, "\"" + s.substr(0, 60) + "\" " + problem);
    return {};
  }
  return s;
}

}  // namespace predlake::raw
