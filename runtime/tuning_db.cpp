#include "runtime/tuning_db.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "jit/gemm_config.hpp"
#include "jit/log.hpp"

namespace livetune {
namespace {

// The schema version is in the name: two library versions sharing a cache folder keep a file
// each instead of setting each other's aside.
const std::string kFileName = "tuning-v" + std::to_string(TuningDB::kSchemaVersion) + ".sqlite";

const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
  target TEXT NOT NULL, workload TEXT NOT NULL, config TEXT NOT NULL,
  seconds REAL NOT NULL, first_seconds REAL NOT NULL, settled INTEGER NOT NULL, calls INTEGER NOT NULL,
  template_version INTEGER NOT NULL, library_version TEXT NOT NULL, unix_time INTEGER NOT NULL,
  PRIMARY KEY (target, workload));
)";

// One prepared statement, finalised on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { ok_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) == SQLITE_OK; }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return ok_; }
  sqlite3_stmt* get() const { return s_; }
  void text(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT); }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  bool ok_ = false;
};

bool exec(sqlite3* db, const char* sql, std::string* why) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  if (rc != SQLITE_OK && why) *why = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return rc == SQLITE_OK;
}

// Opens `path` and checks that it is a tuning database of this schema (making it one if it is
// new). Empty: usable; else why not. sqlite3_close_v2: a connection closed while a statement
// is still alive closes when the statement is finalised (sqlite3_close would fail and leak it).
std::string try_open(const std::string& path, sqlite3** out) {
  *out = nullptr;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close_v2(db);
    return why;
  }
  sqlite3_busy_timeout(db, 2000);  // another process's write: wait for it, briefly
  std::string why;
  // WAL lets several processes read while one writes; a damaged file fails here or below.
  // NORMAL: a commit is not synced to disk at once; a power cut may lose the last records of a
  // cache, never corrupt it.
  if (!exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", &why) || !exec(db, kSchema, &why)) {
    sqlite3_close_v2(db);
    return why;
  }
  Statement version(db, "SELECT value FROM meta WHERE key = 'schema_version';");
  if (!version.ok()) {
    sqlite3_close_v2(db);
    return "unreadable meta table";
  }
  const std::string ours = std::to_string(TuningDB::kSchemaVersion);
  if (sqlite3_step(version.get()) == SQLITE_ROW) {
    const std::string theirs = version.column_text(0);
    if (theirs != ours) {
      sqlite3_close_v2(db);
      return "schema version " + theirs + ", this library writes " + ours;
    }
  } else {
    Statement set(db, "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?1);");
    set.text(1, ours);
    if (!set.ok() || sqlite3_step(set.get()) != SQLITE_DONE) {
      sqlite3_close_v2(db);
      return "cannot write the schema version";
    }
  }
  Statement check(db, "PRAGMA quick_check;");
  if (!check.ok() || sqlite3_step(check.get()) != SQLITE_ROW || check.column_text(0) != "ok") {
    sqlite3_close_v2(db);
    return "damaged (quick_check failed)";
  }
  *out = db;
  return {};
}

// Renames the file (and its WAL side files) aside, so that a person can look at it later.
void set_aside(const std::string& path, const std::string& why) {
  const auto stamp = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  const std::string aside = path + ".aside-" + std::to_string(stamp);
  std::error_code ec;
  std::filesystem::rename(path, aside, ec);
  for (const char* side : {"-wal", "-shm"}) std::filesystem::remove(path + side, ec);
  log(LogLevel::warn, "tuning database '" + path + "' set aside as '" + aside + "' and replaced: " + why);
}

}  // namespace

std::string default_tuning_db_path() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("LIVETUNE_CACHE_DIR"); dir && *dir) return (fs::path(dir) / kFileName).string();
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "livetune" / kFileName).string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".cache" / "livetune" / kFileName).string();
}

std::unique_ptr<TuningDB> TuningDB::open(const std::string& path, const std::string& target_fingerprint) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  sqlite3* db = nullptr;
  std::string why = try_open(path, &db);
  if (!why.empty() && std::filesystem::exists(path, ec)) {
    set_aside(path, why);
    why = try_open(path, &db);
  }
  if (!why.empty()) {
    log(LogLevel::warn, "no tuning database at '" + path + "' (" + why + "): tuning results are not kept");
    return nullptr;
  }
  return std::unique_ptr<TuningDB>(new TuningDB(db, path, target_fingerprint));
}

TuningDB::TuningDB(sqlite3* db, std::string path, std::string target)
    : db_(db), path_(std::move(path)), target_(std::move(target)) {}

TuningDB::~TuningDB() { sqlite3_close_v2(db_); }

std::optional<TuningRecord> TuningDB::find(const std::string& workload) const {
  Statement q(db_,
              "SELECT config, seconds, first_seconds, settled, calls, template_version, library_version, unix_time "
              "FROM records WHERE target = ?1 AND workload = ?2 AND template_version = ?3;");
  if (!q.ok()) return std::nullopt;
  q.text(1, target_);
  q.text(2, workload);
  sqlite3_bind_int(q.get(), 3, kGemmTemplateVersion);
  if (sqlite3_step(q.get()) != SQLITE_ROW) return std::nullopt;
  TuningRecord r;
  r.workload = workload;
  r.config = q.column_text(0);
  r.seconds = sqlite3_column_double(q.get(), 1);
  r.first_seconds = sqlite3_column_double(q.get(), 2);
  r.settled = sqlite3_column_int(q.get(), 3) != 0;
  r.calls = uint64_t(sqlite3_column_int64(q.get(), 4));
  r.template_version = sqlite3_column_int(q.get(), 5);
  r.library_version = q.column_text(6);
  r.unix_time = sqlite3_column_int64(q.get(), 7);
  return r;
}

bool TuningDB::store(const TuningRecord& r) {
  Statement q(db_,
              "INSERT OR REPLACE INTO records (target, workload, config, seconds, first_seconds, settled, calls, "
              "template_version, library_version, unix_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10);");
  if (q.ok()) {
    q.text(1, target_);
    q.text(2, r.workload);
    q.text(3, r.config);
    sqlite3_bind_double(q.get(), 4, r.seconds);
    sqlite3_bind_double(q.get(), 5, r.first_seconds);
    sqlite3_bind_int(q.get(), 6, r.settled ? 1 : 0);
    sqlite3_bind_int64(q.get(), 7, int64_t(r.calls));
    sqlite3_bind_int(q.get(), 8, r.template_version);
    q.text(9, r.library_version);
    sqlite3_bind_int64(q.get(), 10, r.unix_time);
    if (sqlite3_step(q.get()) == SQLITE_DONE) return true;  // one statement: one transaction
  }
  log(LogLevel::warn, "tuning database '" + path_ + "': cannot record '" + r.workload + "': " + sqlite3_errmsg(db_));
  return false;
}

}  // namespace livetune
