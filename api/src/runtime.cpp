#include "livetune/runtime.hpp"

#include <tbb/global_control.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "matmul_args.hpp"
#include "runtime/constant_operand.hpp"
#include "runtime/dispatcher.hpp"
#include "runtime/tuning_db.hpp"

namespace livetune {
namespace {

int resolve_threads(int requested, const char* name) {
  if (requested < 0) throw Error(name, std::string("Runtime: argument '") + name + "': expected 0 (all cores) or more");
  return requested ? requested : int(std::max(1u, std::thread::hardware_concurrency()));
}

TuningOptions tuning_options(const RuntimeOptions& o) {
  if (!(o.exploration_budget >= 0.0 && o.exploration_budget <= 1.0))
    throw Error("options.exploration_budget",
                "Runtime: argument 'options.exploration_budget': expected a share in [0, 1], got " +
                    std::to_string(o.exploration_budget));
  if (o.settle_rounds < 1)
    throw Error("options.settle_rounds", "Runtime: argument 'options.settle_rounds': expected at least 1, got " +
                                             std::to_string(o.settle_rounds));
  if (!(o.drift_threshold > 1.0))
    throw Error("options.drift_threshold", "Runtime: argument 'options.drift_threshold': expected more than 1, got " +
                                               std::to_string(o.drift_threshold));
  TuningOptions t;
  t.enabled = o.tuning;
  t.budget = o.exploration_budget;
  t.settle_rounds = o.settle_rounds;
  t.drift = o.drift_threshold;
  t.seed = o.seed;
  return t;
}

std::string tuning_db_path(const RuntimeOptions& o) {
  if (!o.persistent) return {};
  if (o.cache_dir.empty()) return default_tuning_db_path();
  return (std::filesystem::path(o.cache_dir) / std::filesystem::path(default_tuning_db_path()).filename()).string();
}

MBuckets m_buckets(const ShapeBuckets& b) {
  if (b.rule == ShapeBuckets::Rule::multiples && b.step < 1)
    throw Error("options.m_buckets.step", "Runtime: argument 'options.m_buckets.step': expected at least 1, got " +
                                              std::to_string(b.step));
  MBuckets out;
  out.rule = b.rule == ShapeBuckets::Rule::exact           ? MBuckets::Rule::exact
             : b.rule == ShapeBuckets::Rule::powers_of_two ? MBuckets::Rule::powers_of_two
                                                           : MBuckets::Rule::multiples;
  out.step = b.step;
  return out;
}

// LLVM's code generator recurses deeply: give pool threads generous stacks. Process-wide,
// set before the first pool thread starts.
void reserve_deep_stacks() {
  static tbb::global_control stacks(tbb::global_control::thread_stack_size, size_t(16) << 20);
}

}  // namespace

struct ConstantMatrix::Impl {
  TensorView view;
  std::shared_ptr<ConstantOperand> operand;
};

ConstantMatrix::ConstantMatrix(const TensorView& b)
    : impl_(std::make_shared<Impl>(Impl{b, std::make_shared<ConstantOperand>(static_cast<const float*>(b.data))})) {}

const TensorView& ConstantMatrix::view() const { return impl_->view; }

struct Runtime::Impl {
  explicit Impl(const RuntimeOptions& o)
      : dispatcher(resolve_threads(o.threads, "options.threads"), resolve_threads(o.compile_threads, "options.compile_threads"),
                   tuning_options(o), tuning_db_path(o), m_buckets(o.m_buckets)) {}
  Dispatcher dispatcher;
};

Runtime::Runtime(RuntimeOptions options) {
  reserve_deep_stacks();
  impl_ = std::make_unique<Impl>(options);
}

Runtime::~Runtime() = default;

void Runtime::matmul(const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& options) {
  const Workload w = matmul_workload(a, b, c, options);
  if (w.m == 0 || w.n == 0) return;
  impl_->dispatcher.matmul(w, static_cast<const float*>(a.data), static_cast<const float*>(b.data),
                           options.bias ? static_cast<const float*>(options.bias->data) : nullptr,
                           static_cast<float*>(c.data));
}

void Runtime::matmul(const TensorView& a, const ConstantMatrix& b, const TensorView& c, const MatmulOptions& options) {
  Workload w = matmul_workload(a, b.view(), c, options);
  w.constant_b = true;
  if (w.m == 0 || w.n == 0) return;
  impl_->dispatcher.matmul(w, static_cast<const float*>(a.data), static_cast<const float*>(b.view().data),
                           options.bias ? static_cast<const float*>(options.bias->data) : nullptr,
                           static_cast<float*>(c.data), b.impl().operand);
}

void Runtime::wait_idle() { impl_->dispatcher.wait_idle(); }

int Runtime::threads() const { return impl_->dispatcher.threads(); }

std::vector<WorkloadInfo> Runtime::workloads() const {
  std::vector<WorkloadInfo> out;
  for (const auto& s : impl_->dispatcher.snapshot()) {
    WorkloadInfo info;
    info.workload = s.workload.text();
    info.state = s.phase;
    if (s.first) {
      const TuningReport& t = s.tuning;
      info.config = t.incumbent_config;
      info.compile_ms = s.first->compile_ms;
      info.tuning = t.state;
      info.first_config = s.first->config.text();
      info.tuning_calls = t.calls;
      info.calls_to_settle = t.calls_to_settle;
      info.seconds_to_settle = t.seconds_to_settle;
      info.proposed = t.proposed, info.compiled = t.compiled, info.validated = t.validated;
      info.measured = t.measured, info.rejected = t.rejected, info.promoted = t.promoted;
      info.kernel_us = t.incumbent_s * 1e6;
      info.first_kernel_us = t.first_s * 1e6;
      info.exploration_overhead = t.total_s > 0 ? t.overhead_s / t.total_s : 0.0;
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.workload < y.workload; });
  return out;
}

}  // namespace livetune
