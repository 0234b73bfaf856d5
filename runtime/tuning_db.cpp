#include "runtime/tuning_db.hpp"

#include <sqlite3.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

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

// Why a file could not be used, and so what to do about it: wait for another process's lock to
// go, set a damaged or foreign file aside, or run without a file (a folder we cannot write, a
// failing disk: renaming would not help, and could take a good file from other processes).
enum class Failure { none, busy, damaged, other };

Failure failure_of(int rc) {
  switch (rc & 0xff) {  // the primary code: SQLITE_BUSY_RECOVERY etc. are busy too
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE: return Failure::none;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return Failure::busy;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Failure::damaged;
    default: return Failure::other;
  }
}

struct Opened {
  sqlite3* db = nullptr;  // set when usable
  Failure failure = Failure::none;
  std::string why;
};

Opened failed(sqlite3* db, Failure failure, std::string why) {
  sqlite3_close_v2(db);
  return {nullptr, failure, std::move(why)};
}

Opened failed(sqlite3* db, int rc) {
  std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return failed(db, failure_of(rc), std::move(why));
}

// Opens `path` and checks that it is a tuning database of this schema (making it one if it is
// new). sqlite3_close_v2: a connection closed while a statement is still alive closes when the
// statement is finalised (sqlite3_close would fail and leak it).
Opened try_open(const std::string& path, std::chrono::milliseconds patience) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) return failed(db, rc);
  sqlite3_busy_timeout(db, int(patience.count()));  // another process's write: wait for it, briefly
  // WAL lets several processes read while one writes; a damaged file fails here or below.
  // NORMAL: a commit is not synced to disk at once; a power cut may lose the last records of a
  // cache, never corrupt it. The switch to WAL of a new file can fail busy without waiting
  // (the busy handler is not called for every lock it takes): the caller retries.
  for (const char* sql : {"PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", kSchema})
    if ((rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr)) != SQLITE_OK) return failed(db, rc);
  const std::string ours = std::to_string(TuningDB::kSchemaVersion);
  {
    Statement version(db, "SELECT value FROM meta WHERE key = 'schema_version';");
    if (!version.ok()) return failed(db, Failure::damaged, "unreadable meta table");
    rc = sqlite3_step(version.get());
    if (rc == SQLITE_ROW && version.column_text(0) != ours)
      return failed(db, Failure::damaged, "schema version " + version.column_text(0) + ", this library writes " + ours);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return failed(db, rc);
    if (rc == SQLITE_DONE) {
      Statement set(db, "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?1);");
      set.text(1, ours);
      if (!set.ok()) return failed(db, Failure::damaged, "cannot write the schema version");
      if ((rc = sqlite3_step(set.get())) != SQLITE_DONE) return failed(db, rc);
    }
  }
  Statement check(db, "PRAGMA quick_check;");
  if (!check.ok()) return failed(db, Failure::damaged, "cannot check the file");
  rc = sqlite3_step(check.get());
  if (rc != SQLITE_ROW) return failed(db, rc);
  if (check.column_text(0) != "ok") return failed(db, Failure::damaged, "damaged (quick_check failed)");
  return {db, Failure::none, {}};
}

// The file's identity (device, inode); zero when there is none.
std::pair<uint64_t, uint64_t> identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {uint64_t(st.st_dev), uint64_t(st.st_ino)};
}

// Renames the file (and removes its WAL side files) aside, so that a person can look at it
// later — unless `path` is no longer the file found damaged: another process set that aside
// already and the file there now is its replacement, in use.
void set_aside(const std::string& path, std::pair<uint64_t, uint64_t> damaged, const std::string& why) {
  if (identity(path) != damaged) return;
  const auto stamp = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  const std::string aside = path + ".aside-" + std::to_string(stamp) + "-" + std::to_string(::getpid());
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

std::unique_ptr<TuningDB> TuningDB::open(const std::string& path, const std::string& target_fingerprint,
                                         std::chrono::milliseconds patience) {
  using Clock = std::chrono::steady_clock;
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  const auto deadline = Clock::now() + patience;
  auto backoff = std::chrono::milliseconds(1);
  bool replaced = false;
  for (;;) {
    const auto before = identity(path);
    Opened o = try_open(path, patience);
    if (o.db) return std::unique_ptr<TuningDB>(new TuningDB(o.db, path, target_fingerprint, patience));
    // Busy: other processes are creating or writing the file. Retry, with jittered backoff so
    // that openers started together do not collide again in step; never set a file in use aside.
    if (o.failure == Failure::busy && Clock::now() + backoff < deadline) {
      std::this_thread::sleep_for(backoff + std::chrono::microseconds(std::random_device{}() % 1000));
      backoff = std::min(backoff * 2, std::chrono::milliseconds(64));
      continue;
    }
    // Damaged or foreign: once, since a replacement that fails too is not the file's fault.
    if (o.failure == Failure::damaged && !replaced && before != std::pair<uint64_t, uint64_t>{0, 0}) {
      set_aside(path, before, o.why);
      replaced = true;
      continue;
    }
    log(LogLevel::warn, "no tuning database at '" + path + "' (" + o.why + "): tuning results are not kept");
    return nullptr;
  }
}

TuningDB::TuningDB(sqlite3* db, std::string path, std::string target, std::chrono::milliseconds patience)
    : db_(db), pid_(::getpid()), path_(std::move(path)), target_(std::move(target)), patience_(patience) {}

// A parent's connection in a fork's child is left open: closing it there could checkpoint or
// remove the parent's write-ahead log.
TuningDB::~TuningDB() {
  if (db_ && pid_ == ::getpid()) sqlite3_close_v2(db_);
}

sqlite3* TuningDB::connection() const {
  std::lock_guard<std::mutex> lock(reopen_);
  if (pid_ == ::getpid()) return db_;
  pid_ = ::getpid();
  Opened o = try_open(path_, patience_);
  db_ = o.db;
  if (!db_)
    log(LogLevel::warn,
        "tuning database '" + path_ + "' not reopened after fork (" + o.why + "): tuning results are not kept");
  return db_;
}

std::optional<TuningRecord> TuningDB::find(const std::string& workload) const {
  sqlite3* db = connection();
  if (!db) return std::nullopt;
  Statement q(db,
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
  sqlite3* db = connection();
  if (!db) return false;
  Statement q(db,
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
  log(LogLevel::warn, "tuning database '" + path_ + "': cannot record '" + r.workload + "': " + sqlite3_errmsg(db));
  return false;
}

}  // namespace livetune
