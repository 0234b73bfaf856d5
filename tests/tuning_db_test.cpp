// runtime/tuning_db: records round-trip per target and template version; a damaged file or one
// of another schema version is set aside and replaced, while a file another process has locked
// is waited for and never set aside; two handles on one file (two processes) see each other's
// records, and concurrent writers opening one new file together lose none; a forked child writes
// through a connection of its own. Through the Runtime: a second
// runtime on the same folder starts a settled workload from its record and does not tune it
// again, and ignores a record whose config the template does not accept. A process killed
// (SIGKILL) while it writes leaves a file the next one opens with every committed record.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "livetune/livetune.hpp"
#include "policy/default_rule.hpp"
#include "runtime/tuning_db.hpp"

namespace livetune {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed after it.
struct TempFolder {
  fs::path path;
  TempFolder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("livetune-db-" + std::to_string(getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempFolder() { fs::remove_all(path); }
};

TuningRecord record(const std::string& workload, const std::string& config) {
  TuningRecord r;
  r.workload = workload;
  r.config = config;
  r.seconds = 1e-3;
  r.first_seconds = 2e-3;
  r.settled = true;
  r.calls = 42;
  r.template_version = kGemmTemplateVersion;
  r.library_version = "test";
  r.unix_time = 1700000000;
  return r;
}

size_t files_set_aside(const fs::path& folder) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().find(".aside-") != std::string::npos) ++n;
  return n;
}

TEST(TuningDB, RecordsRoundTripPerTargetAndTemplateVersion) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  auto db = TuningDB::open(path, "target-a");
  ASSERT_TRUE(db);
  EXPECT_FALSE(db->find("w1"));
  ASSERT_TRUE(db->store(record("w1", "cfg-1")));
  TuningRecord old = record("w2", "cfg-old");
  old.template_version = kGemmTemplateVersion - 1;
  ASSERT_TRUE(db->store(old));

  const auto got = db->find("w1");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->config, "cfg-1");
  EXPECT_DOUBLE_EQ(got->seconds, 1e-3);
  EXPECT_DOUBLE_EQ(got->first_seconds, 2e-3);
  EXPECT_TRUE(got->settled);
  EXPECT_EQ(got->calls, 42u);
  EXPECT_EQ(got->library_version, "test");
  EXPECT_EQ(got->unix_time, 1700000000);
  EXPECT_FALSE(db->find("w2")) << "a record of another template version is not used";

  ASSERT_TRUE(db->store(record("w1", "cfg-2")));
  EXPECT_EQ(db->find("w1")->config, "cfg-2") << "a new record replaces the old one";
  auto other = TuningDB::open(path, "target-b");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->find("w1")) << "another target's records are not seen";
}

TEST(TuningDB, TwoHandlesOnOneFileSeeEachOthersRecords) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  auto a = TuningDB::open(path, "t");
  auto b = TuningDB::open(path, "t");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->store(record("w", "from-a")));
  ASSERT_TRUE(b->find("w"));
  EXPECT_EQ(b->find("w")->config, "from-a");
  ASSERT_TRUE(b->store(record("w", "from-b")));
  EXPECT_EQ(a->find("w")->config, "from-b");
}

TEST(TuningDB, ConcurrentWritersOnOneFileLoseNoRecord) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  constexpr int kWriters = 4, kRecords = 100;
  std::vector<int> failed(kWriters, 0);
  std::vector<std::thread> writers;
  std::latch start(kWriters);  // all open the new file at once: its creation is the contended part
  for (int t = 0; t < kWriters; ++t)
    writers.emplace_back([&, t] {
      start.arrive_and_wait();
      auto db = TuningDB::open(path, "t");  // a handle each, as separate processes have
      if (!db) {
        failed[size_t(t)] = kRecords;
        return;
      }
      for (int i = 0; i < kRecords; ++i) {
        const std::string name = "w" + std::to_string(t) + "-" + std::to_string(i);
        failed[size_t(t)] += !db->store(record(name, "c" + std::to_string(i)));
        // One workload all writers replace: the last write wins, whole.
        failed[size_t(t)] += !db->store(record("shared", "from-" + std::to_string(t)));
      }
    });
  for (auto& w : writers) w.join();
  for (int t = 0; t < kWriters; ++t) EXPECT_EQ(failed[size_t(t)], 0) << "writer " << t;
  EXPECT_EQ(files_set_aside(folder.path), 0u) << "a file in use is not damaged";
  auto db = TuningDB::open(path, "t");
  ASSERT_TRUE(db);
  for (int t = 0; t < kWriters; ++t)
    for (int i = 0; i < kRecords; ++i) {
      const auto r = db->find("w" + std::to_string(t) + "-" + std::to_string(i));
      ASSERT_TRUE(r) << t << "-" << i;
      EXPECT_EQ(r->config, "c" + std::to_string(i));
    }
  const auto shared = db->find("shared");
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->config.rfind("from-", 0), 0u) << shared->config;
}

// Another process holds the file exclusively (SQLite's exclusive locking mode): the open waits
// its patience out and gives up, leaving the file and its records where they are.
TEST(TuningDB, AFileLockedByAnotherProcessIsNotSetAside) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  ASSERT_TRUE(TuningDB::open(path, "t")->store(record("w", "c")));
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_FALSE(TuningDB::open(path, "t", std::chrono::milliseconds(20)));
  EXPECT_EQ(files_set_aside(folder.path), 0u);
  ASSERT_EQ(sqlite3_exec(holder, "COMMIT;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(holder);
  auto db = TuningDB::open(path, "t");
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->find("w"));
  EXPECT_EQ(db->find("w")->config, "c");
}

// fork(): the child of a process with an open database writes through a connection of its
// own. Through the parent's, the child's record was lost once the parent closed (its last
// connection, as SQLite saw it: the child held none of the file's locks), removing the
// write-ahead log the child was writing to.
TEST(TuningDB, AForkedChildWritesThroughItsOwnConnection) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  auto db = TuningDB::open(path, "t");
  ASSERT_TRUE(db && db->store(record("before-fork", "p")));
  int closed[2];
  ASSERT_EQ(pipe(closed), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    char go = 0;
    const bool ok = read(closed[0], &go, 1) == 1 && db->find("before-fork") && db->store(record("from-child", "c"));
    _exit(ok ? 0 : 1);
  }
  db.reset();  // the parent's close: its last connection
  ASSERT_EQ(write(closed[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  auto again = TuningDB::open(path, "t");
  ASSERT_TRUE(again);
  ASSERT_TRUE(again->find("from-child"));
  EXPECT_EQ(again->find("from-child")->config, "c");
  EXPECT_EQ(files_set_aside(folder.path), 0u);
  close(closed[0]);
  close(closed[1]);
}

// WAL: a write in progress elsewhere does not stop an open, which reads what was committed.
TEST(TuningDB, AnotherProcessWritingDoesNotStopAnOpen) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  ASSERT_TRUE(TuningDB::open(path, "t")->store(record("w", "c")));
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE; DELETE FROM records;", nullptr, nullptr, nullptr), SQLITE_OK);
  auto db = TuningDB::open(path, "t", std::chrono::milliseconds(20));
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->find("w")) << "the delete is not committed";
  EXPECT_EQ(db->find("w")->config, "c");
  ASSERT_EQ(sqlite3_exec(writer, "COMMIT;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(writer);
  EXPECT_FALSE(db->find("w"));
  EXPECT_EQ(files_set_aside(folder.path), 0u);
}

TEST(TuningDB, ADamagedFileIsSetAsideAndReplaced) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  std::ofstream(path) << std::string(5000, 'x');
  auto db = TuningDB::open(path, "t");
  ASSERT_TRUE(db);
  EXPECT_EQ(files_set_aside(folder.path), 1u);
  EXPECT_FALSE(db->find("w"));
  EXPECT_TRUE(db->store(record("w", "c")));
  EXPECT_EQ(db->find("w")->config, "c");
}

TEST(TuningDB, AFileOfAnotherSchemaVersionIsSetAsideAndReplaced) {
  const TempFolder folder;
  const std::string path = (folder.path / "t.sqlite").string();
  {
    auto db = TuningDB::open(path, "t");
    ASSERT_TRUE(db && db->store(record("w", "c")));
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE meta SET value = '999' WHERE key = 'schema_version';", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  auto db = TuningDB::open(path, "t");
  ASSERT_TRUE(db);
  EXPECT_EQ(files_set_aside(folder.path), 1u);
  EXPECT_FALSE(db->find("w")) << "the foreign file's records are not read";
}

// Calls a 40×56×48 workload until its session settles (at most `max_calls` calls).
WorkloadInfo serve_until_settled(Runtime& rt, int max_calls) {
  std::vector<float> a(40 * 48, 0.5f), b(48 * 56, 0.25f), c(40 * 56);
  WorkloadInfo info;
  for (int i = 0; i < max_calls; ++i) {
    rt.matmul(TensorView::matrix(a.data(), 40, 48), TensorView::matrix(b.data(), 48, 56),
              TensorView::matrix(c.data(), 40, 56));
    if (i % 20 == 19) {
      rt.wait_idle();
      info = rt.workloads().at(0);
      if (info.tuning == "settled") break;
    }
  }
  return info;
}

TEST(TuningDBRuntime, ASecondRuntimeStartsASettledWorkloadFromItsRecordAndDoesNotTune) {
  const TempFolder folder;
  RuntimeOptions o;
  o.threads = 1;
  o.exploration_budget = 1.0;
  o.cache_dir = folder.path.string();
  WorkloadInfo first;
  {
    Runtime rt(o);
    first = serve_until_settled(rt, 20000);
    ASSERT_EQ(first.tuning, "settled");
  }
  Runtime rt(o);
  const WorkloadInfo again = serve_until_settled(rt, 40);
  EXPECT_EQ(again.tuning, "settled");
  EXPECT_EQ(again.first_config, first.config) << "the first JIT kernel is the recorded best";
  EXPECT_EQ(again.config, first.config);
  EXPECT_EQ(again.tuning_calls, 0u) << "a settled workload's calls are not counted";
  EXPECT_EQ(again.compiled, 0u) << "and no candidate is compiled";
}

TEST(TuningDBRuntime, ARecordTheTemplateDoesNotAcceptIsIgnored) {
  const TempFolder folder;
  const Workload w = Workload::matmul(40, 56, 48);
  {
    RuntimeOptions probe;
    probe.cache_dir = folder.path.string();
    Runtime make_the_file(probe);  // the runtime names the file; write into the one it uses
  }
  std::string path;
  for (const auto& e : fs::directory_iterator(folder.path))
    if (e.path().extension() == ".sqlite") path = e.path().string();
  ASSERT_FALSE(path.empty());
  {
    auto db = TuningDB::open(path, Target::host().fingerprint());
    ASSERT_TRUE(db && db->store(record(w.text(), "mr=999 nr=1")));
  }
  RuntimeOptions o;
  o.threads = 1;
  o.tuning = false;
  o.cache_dir = folder.path.string();
  Runtime rt(o);
  const WorkloadInfo info = serve_until_settled(rt, 20);
  EXPECT_EQ(info.first_config, default_gemm_config(w, Target::host(), 1).text());
}

// The child of the test below, run as a process of its own (this binary again, with the
// environment naming the file and the pipe): a runtime tunes workloads into the file on one
// thread while this one stores records, acknowledging each committed one on the pipe, until
// the parent kills it.
TEST(TuningDBChild, WritesUntilKilled) {
  const char* folder = std::getenv("LIVETUNE_TEST_KILL_FOLDER");
  const char* ack_fd = std::getenv("LIVETUNE_TEST_KILL_ACK_FD");
  if (!folder || !ack_fd) GTEST_SKIP() << "run by AProcessKilledWhileWritingLeavesEveryCommittedRecord";
  const int ack = std::atoi(ack_fd);
  RuntimeOptions o;
  o.threads = 1;
  o.exploration_budget = 1.0;
  o.cache_dir = folder;
  Runtime rt(o);
  std::thread tuning([&] {
    for (int64_t m = 8;; m = m % 64 + 8) {
      std::vector<float> a(size_t(m) * 48, 0.5f), b(48 * 56, 0.25f), c(size_t(m) * 56);
      rt.matmul(TensorView::matrix(a.data(), m, 48), TensorView::matrix(b.data(), 48, 56),
                TensorView::matrix(c.data(), m, 56));
    }
  });
  auto db = TuningDB::open((fs::path(folder) / fs::path(default_tuning_db_path()).filename()).string(),
                           Target::host().fingerprint());
  if (!db) std::_Exit(3);
  for (int32_t i = 0;; ++i) {
    if (!db->store(record("acknowledged " + std::to_string(i), "c" + std::to_string(i)))) std::_Exit(4);
    if (write(ack, &i, sizeof i) != sizeof i) std::_Exit(5);
  }
}

TEST(TuningDB, AProcessKilledWhileWritingLeavesEveryCommittedRecord) {
  const TempFolder folder;
  int ack[2];
  ASSERT_EQ(pipe(ack), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ack[0]);
    setenv("LIVETUNE_TEST_KILL_FOLDER", folder.path.c_str(), 1);
    setenv("LIVETUNE_TEST_KILL_ACK_FD", std::to_string(ack[1]).c_str(), 1);
    execl("/proc/self/exe", "tuning_db_test", "--gtest_filter=TuningDBChild.WritesUntilKilled", nullptr);
    std::_Exit(127);
  }
  close(ack[1]);
  int32_t last = -1;
  for (int i = 0; i < 1500; ++i) ASSERT_EQ(read(ack[0], &last, sizeof last), ssize_t(sizeof last)) << "the child died";
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  close(ack[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;

  // The file opens as it is (nothing set aside), with every acknowledged record.
  const std::string path = (folder.path / fs::path(default_tuning_db_path()).filename()).string();
  auto db = TuningDB::open(path, Target::host().fingerprint());
  ASSERT_TRUE(db);
  EXPECT_EQ(files_set_aside(folder.path), 0u);
  for (int32_t i = 0; i <= last; ++i) {
    const auto r = db->find("acknowledged " + std::to_string(i));
    ASSERT_TRUE(r) << "record " << i << " of " << last + 1 << " acknowledged";
    EXPECT_EQ(r->config, "c" + std::to_string(i));
  }
  // A runtime on that folder serves right results from whatever the tuning thread recorded.
  RuntimeOptions o;
  o.threads = 1;
  o.cache_dir = folder.path.string();
  Runtime rt(o);
  std::vector<float> a(24 * 48, 0.5f), b(48 * 56, 0.25f), c(24 * 56);
  for (int i = 0; i < 30; ++i) {
    rt.matmul(TensorView::matrix(a.data(), 24, 48), TensorView::matrix(b.data(), 48, 56),
              TensorView::matrix(c.data(), 24, 56));
    if (i == 0) rt.wait_idle();
  }
  for (float x : c) ASSERT_FLOAT_EQ(x, 48 * 0.5f * 0.25f);
}

}  // namespace
}  // namespace livetune
