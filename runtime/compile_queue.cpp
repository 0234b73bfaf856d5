#include "runtime/compile_queue.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace livetune {

CompileQueue::CompileQueue(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { work(); });
}

CompileQueue::~CompileQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void CompileQueue::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
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
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to do
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    ++running_;
    lock.unlock();
    job();
    lock.lock();
    --running_;
    if (jobs_.empty() && running_ == 0) idle_.notify_all();
  }
}

}  // namespace livetune
