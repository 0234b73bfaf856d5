// `livetune serve`: live traffic on one workload, as an application makes it — calls of
// Runtime::matmul on rotating inputs from a number of caller threads, each call timed from the
// caller's side — while the runtime tunes online. Reports how soon the calls got fast, what
// exploring cost, and (with --reference) how the tuned kernel compares with an offline search
// measured in the same run. With --m LO..HI each call has its own M, drawn from the range: the
// report is then the runtime's stats of the workloads those calls met (the first M's and the
// buckets').
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "api/src/stats.hpp"
#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "livetune/runtime.hpp"
#include "runtime/builtin_gemm.hpp"
#include "runtime/executor.hpp"
#include "runtime/json.hpp"
#include "sampler/compile_batch.hpp"
#include "sampler/statistics.hpp"
#include "sampler/synthetic_inputs.hpp"
#include "sampler/validation.hpp"
#include "tools/livetune/args.hpp"
#include "tools/livetune/commands.hpp"
#include "tools/livetune/dispatch_cost.hpp"
#include "tools/livetune/kernel_watch.hpp"
#include "tools/livetune/offline_search.hpp"
#include "tools/livetune/svg_plot.hpp"
#include "tools/livetune/workload_flags.hpp"
#include "tools/measure/measure.hpp"

namespace livetune::cli {
namespace {

constexpr size_t kInputSets = 8;  // distinct inputs the calls rotate through
constexpr size_t kReferenceFinalists = 3;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double parse_share(const Args& args, const std::string& name, double fallback) {
  if (!args.has(name)) return fallback;
  const std::string text = args.get(name);
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(v >= 0.0 && v <= 1.0))
    throw std::invalid_argument("--" + name + ": expected a share in [0, 1], got '" + text + "'");
  return v;
}

struct Inputs {
  std::vector<float> a, b, bias;
};

Activation to_api(ActivationKind a) {
  return a == ActivationKind::relu ? Activation::relu : a == ActivationKind::gelu ? Activation::gelu : Activation::none;
}

// One caller's view of the workload: its output buffer and the call through the public API,
// with `rows` rows of A and C.
struct Caller {
  const Workload& w;
  std::vector<float> c;
  void call(Runtime& rt, const Inputs& in, int64_t rows) {
    const TensorView bias = TensorView::vector(in.bias.data(), w.n);
    MatmulOptions o;
    o.trans_b = w.trans_b;
    o.bias = w.bias ? &bias : nullptr;
    o.activation = to_api(w.act);
    o.beta = w.beta;
    rt.matmul(TensorView::matrix(in.a.data(), rows, w.k, w.lda),
              TensorView::matrix(in.b.data(), w.b_rows(), w.b_cols(), w.ldb),
              TensorView::matrix(c.data(), rows, w.n, w.ldc), o);
  }
};

// --plot: the latency of every call, with the kernel changes marked.
void write_plot(const Args& args, const Workload& w, int callers, const std::vector<double>& per_call_us,
                const std::vector<KernelChange>& changes) {
  if (!args.has("plot")) return;
  std::ofstream out(args.get("plot"));
  const std::string title = "livetune serve: " + w.text() + ", " + std::to_string(callers) + " caller(s)";
  out << latency_svg(title, per_call_us, changes);
  if (!out) throw std::runtime_error("--plot: cannot write '" + args.get("plot") + "'");
}

// The report of traffic whose M varies: the workloads it met, as the runtime's stats say.
int report_range(const Args& args, const Workload& w, Runtime& rt, const std::vector<int64_t>& rows,
                 const std::vector<double>& per_call_us, const std::vector<KernelChange>& changes, double builtin_ms,
                 int callers, int threads, double budget) {
  const std::vector<WorkloadInfo> infos = rt.workloads();
  const double first_call_ms = per_call_us[0] / 1e3;
  write_plot(args, w, callers, per_call_us, changes);
  if (args.has("json")) {
    Json j;
    j.begin_object()
        .field("workload", w.text())
        .field("calls", int64_t(rows.size()))
        .field("callers", callers)
        .field("threads", threads)
        .field("budget", budget)
        .field("first_call_ms", first_call_ms)
        .field("builtin_ms", builtin_ms)
        .begin_array("workloads");
    for (const WorkloadInfo& info : infos) write_workload(j, info);
    j.end_array().begin_array("call_m");
    for (int64_t m : rows) j.value(double(m));
    j.end_array().begin_array("per_call_us");
    for (double us : per_call_us) j.value(us);
    j.end_array().end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  }
  std::printf("workload     %s, %zu calls of M drawn from %lld..%lld, %d caller(s), %d thread(s) per call\n",
              w.text().c_str(), rows.size(), static_cast<long long>(w.min_m), static_cast<long long>(w.m), callers,
              threads);
  std::printf("first call   %.3f ms (built-in kernel alone %.3f ms), M = %lld\n\n", first_call_ms, builtin_ms,
              static_cast<long long>(rows[0]));
  std::printf("%s", RuntimeStats{infos}.table().c_str());
  return 0;
}

// The inputs the calls rotate through, each read once, as an application's are resident
// before it calls: the first read of a freshly made set ran up to 3x slower here
// (49x512x4608: 28 against 9 ms), which the first call would otherwise be charged with.
std::vector<Inputs> input_sets(const Workload& w, uint64_t seed) {
  std::vector<Inputs> sets;
  for (size_t i = 0; i < kInputSets; ++i) {
    const SyntheticInputs d(w, seed * 1000 + i);
    sets.push_back({{d.a.begin(), d.a.end()}, {d.b.begin(), d.b.end()}, {d.bias.begin(), d.bias.end()}});
    sets.back().bias.resize(size_t(std::max<int64_t>(w.n, 1)));
  }
  float touched = 0.0f;
  for (const Inputs& in : sets)
    for (const std::vector<float>* v : {&in.a, &in.b, &in.bias}) touched += std::accumulate(v->begin(), v->end(), 0.0f);
  if (!std::isfinite(touched)) throw std::runtime_error("input sets are not finite");
  return sets;
}

// What the first call (of `rows` rows) would cost if it ran the built-in kernel alone, in the
// first call's conditions: on a thread of its own, on inputs it has not read before (median of
// three), in ms.
double builtin_first_call_ms(const Workload& w, int64_t rows, const std::vector<Inputs>& sets,
                             const std::vector<float>& c_init) {
  std::vector<double> builtin_s;
  Workload first_call = w;
  first_call.m = rows, first_call.min_m = 0;
  for (size_t set = 1; set <= 3; ++set)
    std::thread([&] {
      std::vector<float> c = c_init;
      const auto start = Clock::now();
      builtin_matmul(first_call, sets[set].a.data(), sets[set].b.data(), sets[set].bias.data(), c.data());
      builtin_s.push_back(seconds_since(start));
    }).join();
  return median(builtin_s) * 1e3;
}

// The calls' latencies, and the kernels seen serving them.
struct Traffic {
  std::vector<double> per_call_us;
  std::vector<KernelWatch::Change> seen;
};

// One call per entry of `rows` (its M), from `callers` threads, each timed from its caller's side.
Traffic serve_traffic(Runtime& rt, const Workload& w, const std::vector<int64_t>& rows, int callers,
                      const std::vector<Inputs>& sets, const std::vector<float>& c_init) {
  const int64_t calls = int64_t(rows.size());
  Traffic out;
  out.per_call_us.assign(rows.size(), 0.0);
  std::atomic<int64_t> next{0};
  KernelWatch watch(rt, next);
  std::vector<std::thread> traffic;
  for (int t = 0; t < callers; ++t)
    traffic.emplace_back([&] {
      Caller me{w, c_init};
      for (int64_t i; (i = next.fetch_add(1)) < calls;) {
        const auto start = Clock::now();
        me.call(rt, sets[size_t(i) % kInputSets], rows[size_t(i)]);
        out.per_call_us[size_t(i)] = seconds_since(start) * 1e6;
        if (i == 0) watch.begin();
      }
    });
  for (auto& t : traffic) t.join();
  rt.wait_idle();
  out.seen = watch.stop();
  return out;
}

// Every kernel that served calls, and (--reference) the offline search's best, measured side by side.
struct ServedKernels {
  std::map<std::string, double> seconds_of;  // config text → median seconds per call
  double reference_s = 0;                    // 0: no reference
  std::string reference_config;
  size_t reference_searched = 0;
};

ServedKernels measure_served_kernels(const Args& args, const Workload& w, int threads, uint64_t seed,
                                     const std::vector<std::string>& change_configs,
                                     const std::vector<Inputs>& sets, const Floats& c_made,
                                     const std::vector<float>& c_init) {
  const Space space = gemm_space(w, Target::host());
  std::vector<std::string> measured_configs;
  for (const std::string& c : change_configs)
    if (std::find(measured_configs.begin(), measured_configs.end(), c) == measured_configs.end())
      measured_configs.push_back(c);
  std::vector<KernelPtr> kernels;
  for (const std::string& c : measured_configs) kernels.push_back(compile_gemm(w, space.parse(c)));
  const size_t reference_first = kernels.size();
  ServedKernels out;
  // Each measured call takes the next input set, as the live calls did: with a set's B no
  // longer in the core's caches, kernels that pack B rank differently than on one hot input.
  Executor exec(threads);
  const CallMaker call = [&](const Kernel& k, float* c) -> std::function<void()> {
    return [&exec, &sets, &k, c, next_set = size_t(0)]() mutable {
      const Inputs& in = sets[next_set++ % kInputSets];
      exec.run(k, k.workload.m, in.a.data(), in.b.data(), in.bias.data(), c);
    };
  };
  if (args.has("reference")) {
    const ValidationData data(w, seed);
    const std::vector<Config> configs = configs_to_try(w, threads, args.get("reference"), "", seed);
    std::vector<KernelPtr> candidates;
    for (Compiled& c : compile_and_validate(data, configs, 1))
      if (c.kernel) candidates.push_back(std::move(c.kernel));
    out.reference_searched = candidates.size();
    for (const KernelPtr& k : rank_kernels(candidates, c_made, call, kReferenceFinalists)) kernels.push_back(k);
  }
  std::vector<std::vector<float>> outputs(kernels.size(), c_init);
  std::vector<std::function<void()>> fns;
  for (size_t i = 0; i < kernels.size(); ++i) fns.push_back(call(*kernels[i], outputs[i].data()));
  MeasureOptions mo;
  mo.samples = 11;
  const std::vector<Measurement> m = measure_interleaved(fns, mo);
  for (size_t i = 0; i < reference_first; ++i) out.seconds_of[measured_configs[i]] = m[i].median_s;
  for (size_t i = reference_first; i < kernels.size(); ++i)
    if (out.reference_s == 0 || m[i].median_s < out.reference_s)
      out.reference_s = m[i].median_s, out.reference_config = kernels[i]->config.text();
  return out;
}

// What `livetune serve` reports of traffic on one workload.
struct Report {
  const WorkloadInfo& info;
  int64_t calls;
  int callers, threads;
  double budget;
  double first_call_ms, builtin_ms;
  int64_t calls_to_within;  // -1: never within 5% of the final kernel
  std::vector<std::string> change_configs;
  const std::vector<KernelChange>& changes;
  double first_gflops, gflops;
  const ServedKernels& served;
  double settled_dispatch_ns;
  const std::vector<double>& per_call_us;
};

void print_json(const Workload& w, const Report& r) {
  const WorkloadInfo& info = r.info;
  Json j;
  j.begin_object()
      .field("workload", w.text())
      .field("calls", r.calls)
      .field("callers", r.callers)
      .field("threads", r.threads)
      .field("budget", r.budget)
      .field("tuning", info.tuning)
      .field("tuning_calls", int64_t(info.tuning_calls))
      .field("first_call_ms", r.first_call_ms)
      .field("builtin_ms", r.builtin_ms)
      .field("calls_to_within_5pct", r.calls_to_within)
      .field("calls_to_settle", int64_t(info.calls_to_settle))
      .field("seconds_to_settle", info.seconds_to_settle)
      .field("exploration_overhead", info.exploration_overhead)
      .field("settled_dispatch_ns", r.settled_dispatch_ns)
      .field("first_config", r.change_configs.front())
      .field("first_gflops", r.first_gflops)
      .field("final_config", info.config)
      .field("final_gflops", r.gflops);
  const double final_s = r.served.seconds_of.at(info.config);
  if (r.served.reference_s > 0)
    j.field("reference_config", r.served.reference_config)
        .field("reference_configs_searched", int64_t(r.served.reference_searched))
        .field("reference_gflops", w.flops() / r.served.reference_s / 1e9)
        .field("ratio_to_reference", r.served.reference_s / final_s);
  else
    j.null_field("reference_gflops").null_field("ratio_to_reference");
  write_candidates(j, info);
  j.begin_array("kernel_changes");
  for (size_t i = 0; i < r.changes.size(); ++i)
    j.begin_object().field("call", int64_t(r.changes[i].call)).field("config", r.change_configs[i]).end_object();
  j.end_array().begin_array("per_call_us");
  for (double us : r.per_call_us) j.value(us);
  j.end_array().end_object();
  std::printf("%s\n", j.str().c_str());
}

void print_table(const Workload& w, const Report& r) {
  const WorkloadInfo& info = r.info;
  std::printf("workload     %s, %lld calls from %d caller(s), %d thread(s) per call\n", w.text().c_str(),
              static_cast<long long>(r.calls), r.callers, r.threads);
  std::printf("first call   %.3f ms (built-in kernel alone %.3f ms)\n", r.first_call_ms, r.builtin_ms);
  std::printf("first JIT    %7.1f GFLOP/s  %s\n", r.first_gflops, r.change_configs.front().c_str());
  std::printf("final        %7.1f GFLOP/s  %s (%s)\n", r.gflops, info.config.c_str(), info.tuning.c_str());
  std::printf("within 5%%    of the final kernel from call %lld\n", static_cast<long long>(r.calls_to_within));
  std::printf("candidates   %llu proposed, %llu compiled, %llu validated, %llu raced, %llu rejected, %llu promoted\n",
              static_cast<unsigned long long>(info.proposed), static_cast<unsigned long long>(info.compiled),
              static_cast<unsigned long long>(info.validated), static_cast<unsigned long long>(info.measured),
              static_cast<unsigned long long>(info.rejected), static_cast<unsigned long long>(info.promoted));
  std::printf("exploration  %.2f%% of the call time (budget %.2f%%)\n", 100 * info.exploration_overhead,
              100 * r.budget);
  std::printf("settled      a call costs the kernel's time + %.1f ns (4x4x4, tuned until settled)\n",
              r.settled_dispatch_ns);
  if (r.served.reference_s > 0)
    std::printf("reference    %7.1f GFLOP/s  %s (offline, best of %zu): final at %.3fx\n",
                w.flops() / r.served.reference_s / 1e9, r.served.reference_config.c_str(), r.served.reference_searched,
                r.served.reference_s / r.served.seconds_of.at(info.config));
}

}  // namespace

int cmd_serve(const std::vector<std::string>& argv) {
  auto valued = kWorkloadValued;
  valued.insert({"calls", "callers", "threads", "budget", "reference", "plot", "seed", "cache"});
  auto switches = kWorkloadSwitches;
  switches.insert({"json", "frozen"});
  Args args(argv, switches, valued);
  // As the runtime names it (its stats, its records): a K×1 B is served as a 1×K B transposed.
  const Workload w = workload_from(args).kernel_form();
  const int64_t calls = args.get_int("calls", 3000);
  const int callers = int(args.get_int("callers", 1));
  const int threads = int(args.get_int("threads", 1));
  const uint64_t seed = uint64_t(args.get_int("seed", 1));
  if (calls < 1) throw std::invalid_argument("--calls: expected at least 1");
  if (callers < 1) throw std::invalid_argument("--callers: expected at least 1");
  if (threads < 1) throw std::invalid_argument("--threads: expected at least 1");
  const double budget = parse_share(args, "budget", 0.02);
  // The rows of each call: the workload's M, or drawn from its range (--m LO..HI).
  const bool ranged = w.min_m > 0;
  if (ranged && args.has("reference"))
    throw std::invalid_argument("--reference: compares the kernels of one workload, not with a range of M");
  std::vector<int64_t> rows(size_t(calls), w.m);
  if (ranged) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> pick(w.min_m, w.m);
    for (int64_t& r : rows) r = pick(rng);
  }
  const std::vector<Inputs> sets = input_sets(w, seed);
  const Floats c_made = SyntheticInputs(w, seed).c;
  const std::vector<float> c_init(c_made.begin(), c_made.end());
  const double builtin_ms = builtin_first_call_ms(w, rows[0], sets, c_init);

  // The application starts: its runtime is made, and ready (LLVM's own start-up done), before
  // traffic arrives. The workload is new to it: its first calls run while its kernel compiles.
  RuntimeOptions ro;
  ro.threads = threads;
  ro.tuning = !args.has("frozen");
  ro.exploration_budget = budget;
  ro.seed = seed;
  // Without --cache nothing is kept or read: every run starts from the default rule.
  ro.persistent = args.has("cache");
  ro.cache_dir = args.get("cache");
  Runtime rt(ro);
  rt.wait_idle();
  const Traffic traffic = serve_traffic(rt, w, rows, callers, sets, c_init);
  const std::vector<KernelChange> changes = plot_marks(traffic.seen, size_t(calls - 1));
  if (ranged)
    return report_range(args, w, rt, rows, traffic.per_call_us, changes, builtin_ms, callers, threads, budget);
  const std::vector<WorkloadInfo> infos = rt.workloads();
  if (infos.empty() || infos[0].config.empty()) throw std::runtime_error("the workload got no JIT kernel");
  const WorkloadInfo& info = infos[0];
  std::vector<std::string> change_configs;
  for (const KernelWatch::Change& c : traffic.seen) change_configs.push_back(c.config);

  const ServedKernels served = measure_served_kernels(args, w, threads, seed, change_configs, sets, c_made, c_init);
  const double final_s = served.seconds_of.at(info.config);
  int64_t calls_to_within = -1;
  for (size_t i = 0; i < changes.size() && calls_to_within < 0; ++i)
    if (served.seconds_of.at(change_configs[i]) <= 1.05 * final_s) calls_to_within = int64_t(changes[i].call);
  const Report report{.info = info,
                      .calls = calls,
                      .callers = callers,
                      .threads = threads,
                      .budget = budget,
                      .first_call_ms = traffic.per_call_us[0] / 1e3,
                      .builtin_ms = builtin_ms,
                      .calls_to_within = calls_to_within,
                      .change_configs = change_configs,
                      .changes = changes,
                      .first_gflops = w.flops() / served.seconds_of.at(change_configs.front()) / 1e9,
                      .gflops = w.flops() / final_s / 1e9,
                      .served = served,
                      .settled_dispatch_ns = measure_dispatch_ns(DispatchPath::settled),
                      .per_call_us = traffic.per_call_us};
  write_plot(args, w, callers, traffic.per_call_us, changes);
  if (args.has("json"))
    print_json(w, report);
  else
    print_table(w, report);
  return 0;
}

}  // namespace livetune::cli
