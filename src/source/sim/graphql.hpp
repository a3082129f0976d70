// A parser for the subset of GraphQL that subgraph clients send: one query operation (optionally
// named, with variable definitions), fields with aliases, arguments and nested selections.
// Fragments, directives, mutations, subscriptions and block strings are rejected with an error
// naming them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace predlake::sim::graphql {

// Selections and values nested deeper than this are rejected, which bounds recursion.
inline constexpr int kMaxDepth = 32;
// Longer query texts are rejected.
inline constexpr size_t kMaxQueryBytes = 256 * 1024;

struct Value {
  enum class Kind { kNull, kInt, kFloat, kString, kBool, kEnum, kList, kObject, kVariable };
  Kind kind = Kind::kNull;
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string text;          // kString, kEnum, kVariable (the name without '$')
  std::vector<Value> items;  // kList
  std::vector<std::pair<std::string, Value>> fields;  // kObject, in source order

  static Value Null() { return Value(); }
  const Value* Find(std::string_view name) const;  // kObject: the field, or nullptr
  std::string Describe() const;                    // short text for error messages
};

struct Field {
  std::string alias;  // the response key: alias if given, else name
  std::string name;
  std::vector<std::pair<std::string, Value>> arguments;
  std::vector<Field> selections;
  bool has_selection_set = false;
  int resolved = -1;  // filled in by the executor's validation: which schema field this is
};

struct VariableDefinition {
  std::string name;
  std::string type;  // as written, e.g. "[String!]!"
  bool has_default = false;
  Value default_value;
};

struct Document {
  std::string operation_name;
  std::vector<VariableDefinition> variables;
  std::vector<Field> selections;  // the root fields
};

// Parses `text`. On failure returns a kSource status whose message is the GraphQL error text, e.g.
// "Syntax error at 1:7: expected Name, found '}'".
Result<Document> Parse(std::string_view text);

// Replaces every variable in the arguments with its value from `values` (a kObject, or kNull for
// none), or its default. Returns an error naming an undefined or missing variable.
Status BindVariables(Document& doc, const Value& values);

}  // namespace predlake::sim::graphql
