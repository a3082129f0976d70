// Typed access to one JSON record of a subgraph answer, by dotted path ("slot.predictContract.id").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.hpp"

namespace predlake::raw {

// Reads fields of one record. A missing field, a null where a value is required, or a value of the
// wrong type sets the first error (readable through status(); later reads then return defaults).
// Types follow the subgraph: Int is a JSON number (a string of digits is accepted too, as BigInt
// fields are rendered), BigDecimal a string of decimal text (never a number: it would have been
// rounded), Boolean a JSON boolean. Not thread-safe; cheap to construct.
class RecordReader {
 public:
  explicit RecordReader(const nlohmann::json& record) : record_(record) {}

  std::string String(std::string_view path);
  int64_t Int(std::string_view path);
  bool Bool(std::string_view path);
  std::optional<bool> OptionalBool(std::string_view path);  // null or absent -> nullopt
  std::string Decimal(std::string_view path);
  // The value at `path`, or nullptr when absent or null (no error set).
  const nlohmann::json* Find(std::string_view path) const;

  bool ok() const { return status_.ok(); }
  // "field `x.y` is missing" style message, without the record's identity (the caller adds it).
  const Status& status() const { return status_; }

 private:
  const nlohmann::json* Require(std::string_view path);
  void Fail(std::string_view path, const std::string& what);

  const nlohmann::json& record_;
  Status status_;
};

// A short description of a JSON value's type for error messages ("number", "string", ...).
std::string JsonTypeName(const nlohmann::json& value);

}  // namespace predlake::raw
