#pragma once
// Background compile threads: a bounded number of low-priority threads draining a queue of
// jobs, so that compiling never takes a caller's thread. Plain threads rather than a TBB
// arena: every hand-off is then visible to ThreadSanitizer (Debian's libtbb is not
// instrumented, and its task hand-offs read as races).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace livetune {

class CompileQueue {
 public:
  explicit CompileQueue(int threads);
  // Drops the queued jobs that may be dropped and finishes the others: a runtime going away (a
  // level unloaded) has no use for kernels not yet compiled; 30 of them took its destructor 0.3 s.
  ~CompileQueue();
  CompileQueue(const CompileQueue&) = delete;
  CompileQueue& operator=(const CompileQueue&) = delete;

  // must_run: the job completes something others wait for (a copy of B that calls of other
  // runtimes would otherwise wait for forever), so the destructor runs it rather than drop it.
  void post(std::function<void()> job, bool must_run = false);
  // Blocks until the queue is empty and no job is running.
  void wait_idle();

  // Drops the queued jobs, waits for the running ones, and takes no more: the process exits.
  void stop_for_exit();
  // Around fork(): lets the threads start and the running jobs finish, and holds the queue (no
  // job starts) until resume; in the child, resume starts the threads anew (it has none).
  void hold_for_fork();
  void resume_after_fork(bool in_child);

 private:
  void work();
  // Drops the queued jobs and those posted later: all of them when the process exits, else all
  // but those that must run.
  void stop(bool exiting);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  struct Job {
    std::function<void()> run;
    bool must_run;
  };
  std::deque<Job> jobs_;
  int running_ = 0;
  // Threads made but not yet in work(): a fork waits for them, since a thread starting up holds
  // locks of the C library's or a sanitizer's allocator the child would wait on forever.
  size_t starting_ = 0;
  bool stopping_ = false;
  bool exited_ = false;   // stop_for_exit: every post is dropped (stopping_: all but must-run)
  bool holding_ = false;  // hold_for_fork: no job starts
  std::vector<std::thread> threads_;
};

}  // namespace livetune
