#include "runtime/compile_queue.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <new>

namespace livetune {
namespace {

// The live queues, to stop them all when the process exits. Never destroyed: a static
// Runtime's queue leaves it after main.
struct LiveQueues {
  std::mutex mutex;
  std::vector<CompileQueue*> queues;
  bool exiting = false;
};

LiveQueues& live_queues();
void watch_exit_from_main_thread();

// fork(): the child has only the thread that forked. Every queue lets its threads start and its
// running jobs finish first and holds its lock across the fork, so that no job is half taken
// and no compile or thread start-up holds LLVM's, the piece cache's or an allocator's locks in
// the child (it would wait on them forever; a fork right after a runtime was made hung 1 in 14
// times under AddressSanitizer, whose allocator has no fork handler in GCC 12); the child then
// starts each queue's threads anew (it waited forever on threads it did not have).
void before_fork() {
  LiveQueues& live = live_queues();
  live.mutex.lock();
  for (CompileQueue* q : live.queues) q->hold_for_fork();
}

void after_fork(bool in_child) {
  LiveQueues& live = live_queues();
  for (CompileQueue* q : live.queues) q->resume_after_fork(in_child);
  live.mutex.unlock();
  // The thread that forked is the child's main thread, whichever it was in the parent.
  if (in_child) watch_exit_from_main_thread();
}

LiveQueues& live_queues() {
  static LiveQueues& q = [] () -> LiveQueues& {
    pthread_atfork(before_fork, [] { after_fork(false); }, [] { after_fork(true); });
    return *new LiveQueues;
  }();
  return q;
}

// Ends with the main thread. exit() destroys the exiting thread's thread_locals before any
// static, so this runs before LLVM's statics made by the first compiles go, which a compile
// still running would use (a static Runtime, whose queue outlives main, crashed the process
// on exit in LLVM's instruction selection), and before a static Runtime's destructor would
// run the jobs still queued on them. The main thread ending otherwise (pthread_exit) stops
// the background compiles too; the calls go on with the kernels in use.
struct ExitWatch {
  ~ExitWatch() {
    LiveQueues& live = live_queues();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.exiting = true;
    for (CompileQueue* q : live.queues) q->stop_for_exit();
  }
};

void watch_exit_from_main_thread() {
  if (syscall(SYS_gettid) != getpid()) return;
  thread_local ExitWatch watch;
  (void)watch;
}

}  // namespace

CompileQueue::CompileQueue(int threads) {
  watch_exit_from_main_thread();
  {
    LiveQueues& live = live_queues();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.queues.push_back(this);
    exited_ = stopping_ = live.exiting;
    starting_ = size_t(std::max(1, threads));
    // Under the lock: a fork sees the queue with all its threads or not at all.
    for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { work(); });
  }
}

CompileQueue::~CompileQueue() {
  {
    LiveQueues& live = live_queues();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.queues.erase(std::find(live.queues.begin(), live.queues.end(), this));
  }
  stop(false);
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void CompileQueue::stop(bool exiting) {
  std::deque<Job> dropped;  // destroyed after the lock is released: captures may take locks
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  exited_ = exited_ || exiting;
  const auto kept =
      std::stable_partition(jobs_.begin(), jobs_.end(), [&](const Job& j) { return j.must_run && !exiting; });
  std::move(kept, jobs_.end(), std::back_inserter(dropped));
  jobs_.erase(kept, jobs_.end());
}

void CompileQueue::post(std::function<void()> job, bool must_run) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Stopped: the queue takes only what must run, and nothing once the process exits.
    if (exited_ || (stopping_ && !must_run)) return;
    jobs_.push_back({std::move(job), must_run});
  }
  wake_.notify_one();
}

void CompileQueue::hold_for_fork() {
  std::unique_lock<std::mutex> lock(mutex_);
  holding_ = true;
  idle_.wait(lock, [&] { return running_ == 0 && starting_ == 0; });
  lock.release();  // held across the fork; resume_after_fork unlocks
}

void CompileQueue::resume_after_fork(bool in_child) {
  if (in_child) {
    // The parent's threads, and their waits on the condition variables, are not in the child:
    // fresh condition variables (a signal could go to a waiter that is not there) and threads.
    const size_t threads = threads_.size();
    for (std::thread& t : threads_) t.detach();
    threads_.clear();
    new (&wake_) std::condition_variable;
    new (&idle_) std::condition_variable;
    starting_ = threads;
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  holding_ = false;
  mutex_.unlock();
  wake_.notify_all();
}

void CompileQueue::stop_for_exit() {
  stop(true);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return running_ == 0; });
  }
  wake_.notify_all();
  idle_.notify_all();
}

void CompileQueue::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && running_ == 0; });
}

void CompileQueue::work() {
  // A low CPU priority for this thread only (Linux applies nice values per thread): the
  // application's threads come first, but not to the point of starving this one. At nice 19
  // it got ~1.5% of a core beside busy callers, and a server with every core serving requests
  // stayed on the built-in kernels for tens of seconds; nice 5 gets it about a quarter.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
  std::unique_lock<std::mutex> lock(mutex_);
  if (--starting_ == 0) idle_.notify_all();
  while (true) {
    wake_.wait(lock, [&] { return !holding_ && (stopping_ || !jobs_.empty()); });
    if (jobs_.empty()) return;  // stopping, and nothing left to do
    std::function<void()> job = std::move(jobs_.front().run);
    jobs_.pop_front();
    ++running_;
    lock.unlock();
    job();
    lock.lock();
    --running_;
    // wait_idle waits for no job queued or running, hold_for_fork and stop_for_exit for none running.
    if (running_ == 0) idle_.notify_all();
  }
}

}  // namespace livetune
