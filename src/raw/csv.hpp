// A streaming RFC 4180 CSV reader that knows which line each record starts on.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace predlake::raw {

// Reads records from one file: comma-separated fields, optionally quoted with '"' (a doubled quote
// inside stands for one; quoted fields may span lines), LF or CRLF line ends, an optional UTF-8
// byte-order mark. Not thread-safe.
class CsvReader {
 public:
  // Opens `path`; kData "PATH: cannot open: reason" when it cannot be read.
  static Result<std::unique_ptr<CsvReader>> Open(const std::string& path);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Reads the next record into `fields`. Returns false at the end of the file. A malformed record
  // (a quote inside an unquoted field, text after a closing quote, an unterminated quote, a NUL
  // byte) or a read error sets `error` to kData "PATH:LINE: what" and returns false. A blank line
  // is a record with one empty field.
  bool Next(std::vector<std::string>& fields, Status& error);

  // The 1-based line on which the last record returned by Next starts.
  int64_t line() const { return record_line_; }
  const std::string& path() const { return path_; }

 private:
  CsvReader(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  int Get();  // next byte or EOF
  int Peek();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_ = std::vector<char>(1 << 20);
  size_t pos_ = 0, end_ = 0;
  int64_t line_ = 1;
  int64_t record_line_ = 0;
  bool first_ = true;
};

}  // namespace predlake::raw
