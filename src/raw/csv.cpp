#include "raw/csv.hpp"

#include <cerrno>
#include <cstring>

namespace predlake::raw {

Result<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::Data(path + ": cannot open: " + std::strerror(errno));
  return std::unique_ptr<CsvReader>(new CsvReader(path, f));
}

CsvReader::~CsvReader() {
  if (file_ != nullptr) std::fclose(file_);
}

int CsvReader::Peek() {
  if (pos_ == end_) {
    end_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    pos_ = 0;
    if (end_ == 0) return EOF;
  }
  return static_cast<unsigned char>(buffer_[pos_]);
}

int CsvReader::Get() {
  int c = Peek();
  if (c != EOF) ++pos_;
  return c;
}

bool CsvReader::Next(std::vector<std::string>& fields, Status& error) {
  fields.clear();
  if (first_) {
    first_ = false;
    // Skip a UTF-8 byte-order mark.
    if (Peek() == 0xEF) {
      Get();
      if (Get() != 0xBB || Get() != 0xBF) {
        error = Status::Data(path_ + ":1: invalid byte-order mark");
        return false;
      }
    }
  }
  if (Peek() == EOF) {
    if (std::ferror(file_)) error = Status::Data(path_ + ": read error: " + std::strerror(errno));
    return false;
  }
  record_line_ = line_;
  auto fail = [&](const std::string& what) {
    error = Status::Data(path_ + ":" + std::to_string(line_) + ": " + what);
    return false;
  };
  std::string field;
  while (true) {
    int c = Get();
    if (c == '"' && field.empty()) {
      // Quoted field.
      while (true) {
        c = Get();
        if (c == EOF) {
          line_ = record_line_;
          return fail("unterminated quoted field (it runs to the end of the file)");
        }
        if (c == '"') {
          if (Peek() == '"') {
            Get();
            field.push_back('"');
            continue;
          }
          break;
        }
        if (c == '\n') ++line_;
        if (c == '\0') return fail("NUL byte in a field");
        field.push_back(static_cast<char>(c));
      }
      c = Get();
      if (c == '\r' && Peek() == '\n') c = Get();
      if (c != ',' && c != '\n' && c != EOF) {
        return fail("unexpected character after a closing quote in field " +
                    std::to_string(fields.size() + 1));
      }
    } else {
      while (c != ',' && c != '\n' && c != EOF) {
        if (c == '\r' && Peek() == '\n') {
          c = Get();
          break;
        }
        if (c == '"') {
          return fail("quote inside an unquoted field " + std::to_string(fields.size() + 1));
        }
        if (c == '\0') return fail("NUL byte in a field");
        field.push_back(static_cast<char>(c));
        c = Get();
      }
    }
    fields.push_back(std::move(field));
    field.clear();
    if (c == ',') continue;
    if (c == '\n') ++line_;
    return true;
  }
}

}  // namespace predlake::raw
