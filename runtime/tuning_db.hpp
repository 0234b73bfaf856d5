#pragma once
// What online tuning learned, kept across processes: one record per (target fingerprint,
// workload) holding the best config found, its statistics and the versions that produced it.
// An SQLite file in write-ahead-log mode, so that several processes can share it; every write
// is one transaction. A file that is damaged, or that another schema version wrote, is
// set aside (renamed, reported in the log) and replaced: never a crash, never a wrong kernel —
// and a record's config is checked against the template's space by whoever uses it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <sys/types.h>

struct sqlite3;

namespace livetune {

struct TuningRecord {
  std::string workload;  // canonical text
  std::string config;    // text
  double seconds = 0.0;        // the config's median time per call when recorded
  double first_seconds = 0.0;  // the first kernel's, for the speed-up
  bool settled = false;        // tuning had converged: a new process need not tune again
  uint64_t calls = 0;          // calls the session had served
  int template_version = 0;
  std::string library_version;
  int64_t unix_time = 0;
};

class TuningDB {
 public:
  // The file `path` (its folder is created); records of other targets are not seen. Null when
  // no usable file can be had (the reason is logged): the runtime then runs without one.
  // `patience`: how long the open, and then each write, waits for other processes' locks. A file
  // that stays locked is not set aside: it is in use, not damaged.
  static std::unique_ptr<TuningDB> open(const std::string& path, const std::string& target_fingerprint,
                                        std::chrono::milliseconds patience = std::chrono::milliseconds(2000));
  ~TuningDB();
  TuningDB(const TuningDB&) = delete;
  TuningDB& operator=(const TuningDB&) = delete;

  // This target's record of the workload, made by this template version; none on any error.
  std::optional<TuningRecord> find(const std::string& workload) const;
  // Inserts or replaces the workload's record; false (logged) when the write failed.
  bool store(const TuningRecord& r);

  static constexpr int kSchemaVersion = 1;

 private:
  TuningDB(sqlite3* db, std::string path, std::string target, std::chrono::milliseconds patience);
  // The connection, opened anew in a child of fork(): SQLite forbids using the parent's there
  // (its locks are the parent's; the child could corrupt the file). Null if that open failed.
  sqlite3* connection() const;

  mutable std::mutex reopen_;
  mutable sqlite3* db_;
  mutable pid_t pid_;  // the process db_ was opened in
  std::string path_;
  std::string target_;
  std::chrono::milliseconds patience_;
};

// $LIVETUNE_CACHE_DIR, else $XDG_CACHE_HOME/livetune, else $HOME/.cache/livetune, + the file.
std::string default_tuning_db_path();

}  // namespace livetune
