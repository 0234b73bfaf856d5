// runtime/compile_queue: the background threads' queue. Destroyed, it drops the queued jobs
// but those that must run (a copy of B other runtimes wait for), and finishes the running one;
// stopped for the process's exit, it drops them all. A blocking first job holds the only
// thread while the rest are queued; it is released when the queue drops a job (a job's
// captures are destroyed when it is dropped), so nothing depends on timing — and a queue that
// ran the droppable jobs instead would never release it: such a regression times out.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "runtime/compile_queue.hpp"

namespace livetune {
namespace {

// Sets a promise when destroyed: a dropped job's captures tell the test the job was dropped.
struct OnDrop {
  std::shared_ptr<std::promise<void>> dropped;
  ~OnDrop() {
    if (dropped) dropped->set_value();
  }
};

struct Counts {
  std::atomic<int> droppable{0}, must_run{0};
};

// One thread, held by a first job until `release` is ready; behind it, three droppable jobs
// (the first of them releases the hold when it is dropped, or run) and two that must run.
void fill(CompileQueue& q, Counts& counts, std::promise<void>& started) {
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> released = release->get_future().share();
  q.post([&started, released] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();  // the thread holds the first job: the rest stay queued
  auto sentinel = std::make_shared<OnDrop>();
  sentinel->dropped = release;
  q.post([&counts, sentinel] { ++counts.droppable; });
  sentinel.reset();  // the queued job holds the last reference
  for (int i = 0; i < 2; ++i) q.post([&counts] { ++counts.droppable; });
  for (int i = 0; i < 2; ++i) q.post([&counts] { ++counts.must_run; }, true);
}

TEST(CompileQueue, DestroyedItDropsTheQueuedJobsButThoseThatMustRun) {
  Counts counts;
  std::promise<void> started;
  auto q = std::make_unique<CompileQueue>(1);
  fill(*q, counts, started);
  q.reset();
  EXPECT_EQ(counts.droppable.load(), 0);
  EXPECT_EQ(counts.must_run.load(), 2);
}

TEST(CompileQueue, StoppedForExitItDropsEveryQueuedJobAndTakesNoMore) {
  Counts counts;
  std::promise<void> started;
  CompileQueue q(1);
  fill(q, counts, started);
  q.stop_for_exit();
  q.post([&counts] { ++counts.must_run; }, true);
  q.wait_idle();
  EXPECT_EQ(counts.droppable.load(), 0);
  EXPECT_EQ(counts.must_run.load(), 0);
}

TEST(CompileQueue, WaitIdleSeesEveryJobRun) {
  std::atomic<int> ran{0};
  CompileQueue q(2);
  for (int i = 0; i < 50; ++i) q.post([&ran] { ++ran; }, i % 2 == 0);
  q.wait_idle();
  EXPECT_EQ(ran.load(), 50);
}

}  // namespace
}  // namespace livetune
