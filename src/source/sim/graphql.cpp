#include "source/sim/graphql.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace predlake::sim::graphql {
namespace {

enum class Tok { kEnd, kPunct, kName, kInt, kFloat, kString };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // punctuator, name, number text, or decoded string
  int line = 1;
  int col = 1;
};

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src) {}

  Result<Document> ParseDocument() {
    RETURN_IF_ERROR(Next());
    Document doc;
    if (IsPunct("{")) {
      RETURN_IF_ERROR(ParseSelectionSet(doc.selections, 1));
    } else if (tok_.kind == Tok::kName && tok_.text == "query") {
      RETURN_IF_ERROR(Next());
      if (tok_.kind == Tok::kName) {
        doc.operation_name = tok_.text;
        RETURN_IF_ERROR(Next());
      }
      if (IsPunct("(")) RETURN_IF_ERROR(ParseVariableDefinitions(doc.variables));
      if (IsPunct("@")) return Unsupported("directives");
      RETURN_IF_ERROR(ParseSelectionSet(doc.selections, 1));
    } else if (tok_.kind == Tok::kName &&
               (tok_.text == "mutation" || tok_.text == "subscription")) {
      return Unsupported(tok_.text + " operations");
    } else if (tok_.kind == Tok::kName && tok_.text == "fragment") {
      return Unsupported("fragments");
    } else {
      return Error("expected '{' or 'query'");
    }
    if (tok_.kind != Tok::kEnd) {
      if (tok_.kind == Tok::kName && tok_.text == "fragment") return Unsupported("fragments");
      return Error("only one operation per document is supported; unexpected");
    }
    return doc;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Source(
        fmt::format("Syntax error at {}:{}: {} {}", tok_.line, tok_.col, what, TokenText()));
  }
  Status Unsupported(const std::string& what) const {
    return Status::Source(fmt::format("Unsupported at {}:{}: {} are not supported by this subgraph",
                                      tok_.line, tok_.col, what));
  }
  std::string TokenText() const {
    switch (tok_.kind) {
      case Tok::kEnd:
        return "<end of input>";
      case Tok::kString:
        return "string";
      default:
        return fmt::format("'{}'", std::string_view(tok_.text).substr(0, 40));
    }
  }
  bool IsPunct(const char* p) const { return tok_.kind == Tok::kPunct && tok_.text == p; }

  Status Expect(const char* p) {
    if (!IsPunct(p)) return Error(fmt::format("expected '{}', found", p));
    return Next();
  }

  Result<std::string> ExpectName() {
    if (tok_.kind != Tok::kName) return Error("expected Name, found");
    std::string name = tok_.text;
    RETURN_IF_ERROR(Next());
    return name;
  }

  Status ParseVariableDefinitions(std::vector<VariableDefinition>& out) {
    RETURN_IF_ERROR(Expect("("));
    while (!IsPunct(")")) {
      VariableDefinition def;
      RETURN_IF_ERROR(Expect("$"));
      ASSIGN_OR_RETURN(def.name, ExpectName());
      RETURN_IF_ERROR(Expect(":"));
      RETURN_IF_ERROR(ParseType(def.type, 1));
      if (IsPunct("=")) {
        RETURN_IF_ERROR(Next());
        def.has_default = true;
        RETURN_IF_ERROR(ParseValue(def.default_value, true, 1));
      }
      if (IsPunct("@")) return Unsupported("directives");
      out.push_back(std::move(def));
    }
    if (out.empty()) return Error("expected a variable definition, found");
    return Next();
  }

  Status ParseType(std::string& out, int depth) {
    if (depth > kMaxDepth) return Error("type nested too deeply at");
    if (IsPunct("[")) {
      RETURN_IF_ERROR(Next());
      out += "[";
      RETURN_IF_ERROR(ParseType(out, depth + 1));
      RETURN_IF_ERROR(Expect("]"));
      out += "]";
    } else {
      ASSIGN_OR_RETURN(std::string name, ExpectName());
      out += name;
    }
    if (IsPunct("!")) {
      out += "!";
      RETURN_IF_ERROR(Next());
    }
    return Status::Ok();
  }

  Status ParseSelectionSet(std::vector<Field>& out, int depth) {
    if (depth > kMaxDepth) return Error("selection nested too deeply at");
    RETURN_IF_ERROR(Expect("{"));
    while (!IsPunct("}")) {
      if (IsPunct("...")) return Unsupported("fragments");
      Field field;
      ASSIGN_OR_RETURN(std::string first, ExpectName());
      if (IsPunct(":")) {
        RETURN_IF_ERROR(Next());
        ASSIGN_OR_RETURN(field.name, ExpectName());
        field.alias = std::move(first);
      } else {
        field.name = first;
        field.alias = std::move(first);
      }
      if (IsPunct("(")) {
        RETURN_IF_ERROR(Next());
        while (!IsPunct(")")) {
          ASSIGN_OR_RETURN(std::string arg, ExpectName());
          RETURN_IF_ERROR(Expect(":"));
          Value v;
          RETURN_IF_ERROR(ParseValue(v, false, depth + 1));
          field.arguments.emplace_back(std::move(arg), std::move(v));
        }
        if (field.arguments.empty()) return Error("expected an argument, found");
        RETURN_IF_ERROR(Next());
      }
      if (IsPunct("@")) return Unsupported("directives");
      if (IsPunct("{")) {
        field.has_selection_set = true;
        RETURN_IF_ERROR(ParseSelectionSet(field.selections, depth + 1));
      }
      out.push_back(std::move(field));
    }
    if (out.empty()) return Error("expected a field, found");
    return Next();
  }

  Status ParseValue(Value& v, bool is_const, int depth) {
    if (depth > kMaxDepth) return Error("value nested too deeply at");
    switch (tok_.kind) {
      case Tok::kEnd:
        return Error("expected a value, found");
      case Tok::kInt: {
        errno = 0;
        char* end = nullptr;
        long long n = std::strtoll(tok_.text.c_str(), &end, 10);
        if (errno == ERANGE) return Error("integer out of range:");
        v.kind = Value::Kind::kInt;
        v.int_value = n;
        return Next();
      }
      case Tok::kFloat:
        v.kind = Value::Kind::kFloat;
        v.float_value = std::strtod(tok_.text.c_str(), nullptr);
        v.text = tok_.text;
        return Next();
      case Tok::kString:
        v.kind = Value::Kind::kString;
        v.text = tok_.text;
        return Next();
      case Tok::kName:
        if (tok_.text == "true" || tok_.text == "false") {
          v.kind = Value::Kind::kBool;
          v.bool_value = tok_.text == "true";
        } else if (tok_.text == "null") {
          v.kind = Value::Kind::kNull;
        } else {
          v.kind = Value::Kind::kEnum;
          v.text = tok_.text;
        }
        return Next();
      case Tok::kPunct:
        break;
    }
    if (IsPunct("$")) {
      if (is_const) return Error("variables are not allowed in default values:");
      RETURN_IF_ERROR(Next());
      v.kind = Value::Kind::kVariable;
      ASSIGN_OR_RETURN(v.text, ExpectName());
      return Status::Ok();
    }
    if (IsPunct("[")) {
      RETURN_IF_ERROR(Next());
      v.kind = Value::Kind::kList;
      while (!IsPunct("]")) {
        Value item;
        RETURN_IF_ERROR(ParseValue(item, is_const, depth + 1));
        v.items.push_back(std::move(item));
      }
      return Next();
    }
    if (IsPunct("{")) {
      RETURN_IF_ERROR(Next());
      v.kind = Value::Kind::kObject;
      while (!IsPunct("}")) {
        ASSIGN_OR_RETURN(std::string name, ExpectName());
        RETURN_IF_ERROR(Expect(":"));
        Value item;
        RETURN_IF_ERROR(ParseValue(item, is_const, depth + 1));
        v.fields.emplace_back(std::move(name), std::move(item));
      }
      return Next();
    }
    return Error("expected a value, found");
  }

  // The lexer: advances tok_ to the next token, skipping whitespace, commas and comments.
  Status Next() {
    for (;;) {
      if (pos_ >= src_.size()) {
        tok_ = Token{Tok::kEnd, "", line_, Col()};
        return Status::Ok();
      }
      const char c = src_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == ',') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else if (src_.substr(pos_, 3) == "\xEF\xBB\xBF") {
        pos_ += 3;
      } else {
        break;
      }
    }
    tok_.line = line_;
    tok_.col = Col();
    tok_.text.clear();
    const char c = src_[pos_];
    if (c == '.') {
      if (src_.substr(pos_, 3) != "...") return LexError("unexpected '.'");
      tok_.kind = Tok::kPunct;
      tok_.text = "...";
      pos_ += 3;
      return Status::Ok();
    }
    if (std::string_view("!$&()[]{}:=@|").find(c) != std::string_view::npos) {
      tok_.kind = Tok::kPunct;
      tok_.text = std::string(1, c);
      ++pos_;
      return Status::Ok();
    }
    if (c == '_' || std::isalpha(static_cast<unsigned char>(c))) {
      const size_t begin = pos_;
      while (pos_ < src_.size() &&
             (src_[pos_] == '_' || std::isalnum(static_cast<unsigned char>(src_[pos_])))) {
        ++pos_;
      }
      tok_.kind = Tok::kName;
      tok_.text = std::string(src_.substr(begin, pos_ - begin));
      return Status::Ok();
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return LexNumber();
    if (c == '"') return LexString();
    return LexError(fmt::format("unexpected character 0x{:02x}", static_cast<unsigned char>(c)));
  }

  int Col() const { return static_cast<int>(pos_ - line_start_) + 1; }

  Status LexError(const std::string& what) const {
    return Status::Source(fmt::format("Syntax error at {}:{}: {}", line_, Col(), what));
  }

  bool Digit(size_t i) const {
    return i < src_.size() && std::isdigit(static_cast<unsigned char>(src_[i]));
  }

  Status LexNumber() {
    const size_t begin = pos_;
    if (src_[pos_] == '-') ++pos_;
    if (!Digit(pos_)) return LexError("expected a digit after '-'");
    if (src_[pos_] == '0' && Digit(pos_ + 1)) return LexError("leading zeros are not allowed");
    while (Digit(pos_)) ++pos_;
    bool is_float = false;
    if (pos_ < src_.size() && src_[pos_] == '.') {
      is_float = true;
      ++pos_;
      if (!Digit(pos_)) return LexError("expected a digit after '.'");
      while (Digit(pos_)) ++pos_;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      if (!Digit(pos_)) return LexError("expected a digit in the exponent");
      while (Digit(pos_)) ++pos_;
    }
    if (pos_ < src_.size() && (src_[pos_] == '_' || src_[pos_] == '.' ||
                               std::isalpha(static_cast<unsigned char>(src_[pos_])))) {
      return LexError("invalid number");
    }
    tok_.kind = is_float ? Tok::kFloat : Tok::kInt;
    tok_.text = std::string(src_.substr(begin, pos_ - begin));
    return Status::Ok();
  }

  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  Status LexString() {
    if (src_.substr(pos_, 3) == "\"\"\"") return LexError("block strings are not supported");
    ++pos_;
    tok_.kind = Tok::kString;
    std::string& out = tok_.text;
    for (;;) {
      if (pos_ >= src_.size() || src_[pos_] == '\n' || src_[pos_] == '\r') {
        return LexError("unterminated string");
      }
      const char c = src_[pos_++];
      if (c == '"') return Status::Ok();
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= src_.size()) return LexError("unterminated string");
      const char e = src_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          if (pos_ + 4 > src_.size()) return LexError("bad \\u escape");
          uint32_t cp = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = src_[pos_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') {
              cp |= static_cast<uint32_t>(h - '0');
            } else if (h >= 'a' && h <= 'f') {
              cp |= static_cast<uint32_t>(h - 'a' + 10);
            } else if (h >= 'A' && h <= 'F') {
              cp |= static_cast<uint32_t>(h - 'A' + 10);
            } else {
              return LexError("bad \\u escape");
            }
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return LexError(fmt::format("bad escape '\\{}'", e));
      }
    }
  }

  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  Token tok_;
};

Status BindValue(Value& v, const Document& doc, const Value& values) {
  if (v.kind == Value::Kind::kVariable) {
    const VariableDefinition* def = nullptr;
    for (const auto& d : doc.variables) {
      if (d.name == v.text) def = &d;
    }
    if (def == nullptr) return Status::Source(fmt::format("Variable `${}` is not defined", v.text));
    const Value* given = values.kind == Value::Kind::kObject ? values.Find(v.text) : nullptr;
    if (given != nullptr) {
      v = *given;
    } else if (def->has_default) {
      v = def->default_value;
    } else if (!def->type.empty() && def->type.back() == '!') {
      return Status::Source(
          fmt::format("Variable `${}` of required type `{}` was not provided", v.text, def->type));
    } else {
      v = Value::Null();
    }
    return Status::Ok();
  }
  for (Value& item : v.items) RETURN_IF_ERROR(BindValue(item, doc, values));
  for (auto& [name, item] : v.fields) RETURN_IF_ERROR(BindValue(item, doc, values));
  return Status::Ok();
}

Status BindFields(std::vector<Field>& fields, const Document& doc, const Value& values) {
  for (Field& f : fields) {
    for (auto& [name, v] : f.arguments) RETURN_IF_ERROR(BindValue(v, doc, values));
    RETURN_IF_ERROR(BindFields(f.selections, doc, values));
  }
  return Status::Ok();
}

}  // namespace

const Value* Value::Find(std::string_view name) const {
  for (const auto& [n, v] : fields) {
    if (n == name) return &v;
  }
  return nullptr;
}

std::string Value::Describe() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kInt:
      return std::to_string(int_value);
    case Kind::kFloat:
      return text;
    case Kind::kString:
      return fmt::format("\"{}\"", std::string_view(text).substr(0, 80));
    case Kind::kBool:
      return bool_value ? "true" : "false";
    case Kind::kEnum:
      return text;
    case Kind::kList:
      return "a list";
    case Kind::kObject:
      return "an object";
    case Kind::kVariable:
      return "$" + text;
  }
  return "?";
}

Result<Document> Parse(std::string_view text) {
  if (text.size() > kMaxQueryBytes) {
    return Status::Source(
        fmt::format("query is too long ({} bytes; the limit is {})", text.size(), kMaxQueryBytes));
  }
  Parser parser(text);
  return parser.ParseDocument();
}

Status BindVariables(Document& doc, const Value& values) {
  for (const auto& def : doc.variables) {
    for (const auto& other : doc.variables) {
      if (&def != &other && def.name == other.name) {
        return Status::Source(fmt::format("Variable `${}` is defined twice", def.name));
      }
    }
  }
  return BindFields(doc.selections, doc, values);
}

}  // namespace predlake::sim::graphql
