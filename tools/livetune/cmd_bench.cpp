// Compiles and measures JIT variants of one workload beside the peer libraries, on the same
// data in the same run: a screen of every valid variant, then the best few interleaved with
// the peers (medians of several samples) — the ratios are what count.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "policy/default_rule.hpp"
#include "runtime/executor.hpp"
#include "runtime/json.hpp"
#include "sampler/compile_batch.hpp"
#include "tools/livetune/args.hpp"
#include "tools/livetune/commands.hpp"
#include "tools/livetune/dispatch_cost.hpp"
#include "tools/livetune/fma_peak.hpp"
#include "tools/livetune/offline_search.hpp"
#include "tools/livetune/workload_flags.hpp"
#include "tools/measure/bandwidth.hpp"
#include "tools/measure/measure.hpp"
#include "tools/peers/peer.hpp"

namespace livetune::cli {
namespace {

constexpr int64_t kFinalists = 5;  // measured against the peers, unless --finalists says

std::vector<std::string> peers_to_run(const Args& args) {
  if (!args.has("peers")) return {"openblas", "onednn", "onednn_packed", "libxsmm", "eigen", "blis"};
  std::vector<std::string> out;
  std::string list = args.get("peers");
  if (list == "none" || list.empty()) return out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// The variants measured, and how many were dropped.
struct Variants {
  std::vector<KernelPtr> kernels;
  std::vector<double> compile_ms;  // of every variant that compiled and validated
  size_t dropped = 0;
};

// Compiled and validated on this thread, as the runtime's background compiler does, so that
// compile_ms is the latency of one variant and not a share of a busy machine.
Variants compile_variants(const ValidationData& data, const std::vector<Config>& configs) {
  Variants out;
  for (const Compiled& c : compile_and_validate(data, configs, 1)) {
    if (c.kernel) {
      out.kernels.push_back(c.kernel);
      out.compile_ms.push_back(c.kernel->compile_ms);
    } else {
      ++out.dropped;
      std::fprintf(stderr, "livetune bench: variant '%s' dropped: %s\n", c.config.text().c_str(), c.error.c_str());
    }
  }
  if (out.kernels.empty()) throw std::runtime_error("no variant compiled and validated");
  return out;
}

// A constant B packed once per layout, outside the timed calls, for the kernels that read it
// packed; others read B itself.
class PackedB {
 public:
  PackedB(const Workload& w, const ValidationData& data) : w_(w), data_(data) {}

  // Where kernel k reads B packed, or nullptr where it reads B itself.
  const float* for_kernel(const Kernel& k) {
    if (!w_.constant_b || !k.takes_packed_b()) return nullptr;
    auto it = by_layout_.find(k.b_layout);
    if (it == by_layout_.end()) {
      const size_t bytes = (size_t(packed_b_floats(w_, k.gemm)) * sizeof(float) + 63) / 64 * 64;
      float* buf = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (!buf) throw std::bad_alloc();
      pack_whole_b(k, data_.b(), buf);
      it = by_layout_.emplace(k.b_layout, std::unique_ptr<float, decltype(&std::free)>(buf, &std::free)).first;
    }
    return it->second.get();
  }

 private:
  const Workload& w_;
  const ValidationData& data_;
  std::map<std::string, std::unique_ptr<float, decltype(&std::free)>> by_layout_;
};

// Keeps the kernels that compute the right result on B packed once: the path that will be
// timed, checked as compile_and_validate checked the other.
void keep_right_on_packed_b(Variants& v, const ValidationData& data, PackedB& packed) {
  std::vector<KernelPtr> checked;
  Executor serial(1);
  for (const KernelPtr& k : v.kernels) {
    Floats c = data.c_init();
    serial.run(*k, k->workload.m, data.a(), data.b(), data.bias(), c.data(), packed.for_kernel(*k));
    if (std::string why = data.check_output(c); why.empty())
      checked.push_back(k);
    else
      std::fprintf(stderr, "livetune bench: variant '%s' dropped on packed B: %s\n", k->config.text().c_str(),
                   why.c_str());
  }
  if (checked.empty()) throw std::runtime_error("no variant computed the right result on packed B");
  v.dropped += v.kernels.size() - checked.size();
  v.kernels = std::move(checked);
}

struct PeerResult {
  std::string name;
  double gflops;
  bool compared;  // false: the peer did less work per call than livetune did here
  std::string detail;
};

// What `livetune bench` reports of one run.
struct Report {
  std::vector<std::pair<std::string, double>> finalists;  // config text, GFLOP/s
  std::string best_config;
  double gflops = 0;
  std::vector<PeerResult> peers;
  std::string best_peer;  // empty: no peer compared
  double ratio = 0;
  Interval ratio_range;
  double peak = 0, bandwidth = 0, roof = 0;
  Interval roof_range;
};

// The finalists, the peers and the read-bandwidth probe, interleaved, each writing its own copy
// of C; the ratios paired round by round.
Report measure_side_by_side(const Workload& asked, const Workload& w, int threads, const ValidationData& data,
                            const std::vector<KernelPtr>& finalists, const CallMaker& call,
                            const std::vector<std::string>& peer_names) {
  std::vector<Floats> outputs(finalists.size(), data.c_init());
  std::vector<std::function<void()>> fns;
  for (size_t i = 0; i < finalists.size(); ++i) fns.push_back(call(*finalists[i], outputs[i].data()));
  std::vector<std::unique_ptr<peers::Peer>> peers;
  std::vector<Floats> peer_outputs;
  for (const std::string& name : peer_names) peers.push_back(peers::make_peer(name));
  peer_outputs.assign(peers.size(), data.c_init());
  for (size_t i = 0; i < peers.size(); ++i) {
    peers[i]->prepare(asked, data.a(), data.b(), data.bias(), peer_outputs[i].data(), threads);
    // A peer that computes something else would make any ratio meaningless.
    peers[i]->run();
    if (std::string why = data.check_output(peer_outputs[i]); !why.empty())
      throw std::runtime_error("peer " + peers[i]->name() + " computed a wrong result: " + why);
    std::copy(data.c_init().begin(), data.c_init().end(), peer_outputs[i].begin());  // keeps the buffer prepare() saw
    fns.push_back([peer = peers[i].get()] { peer->run(); });
  }
  // Each operand crosses memory at least once: A, B, C written (and read when beta != 0).
  const double bytes = 4.0 * (double(w.m * w.k) + double(w.k * w.n) + double(w.m * w.n) * (w.beta != 0.0f ? 2 : 1));
  ReadProbe probe(int64_t(bytes), threads);
  fns.push_back([&probe] { probe.run(); });
  MeasureOptions final_options;
  final_options.samples = 11;
  const std::vector<Measurement> m = measure_interleaved(fns, final_options);

  Report r;
  r.bandwidth = double(probe.bytes()) / m.back().median_s / 1e9;
  size_t best = 0;
  for (size_t i = 0; i < finalists.size(); ++i) {
    r.finalists.emplace_back(finalists[i]->config.text(), w.flops() / m[i].median_s / 1e9);
    if (m[i].median_s < m[best].median_s) best = i;
  }
  r.best_config = finalists[best]->config.text();
  r.gflops = w.flops() / m[best].median_s / 1e9;
  double best_peer_gflops = 0;
  size_t best_peer_index = 0;  // into peers
  for (size_t i = 0; i < peers.size(); ++i) {
    const double g = w.flops() / m[finalists.size() + i].median_s / 1e9;
    const bool compared = w.constant_b || !peers[i]->packs_b_ahead();
    r.peers.push_back({peers[i]->name(), g, compared, peers[i]->detail()});
    if (compared && g > best_peer_gflops) best_peer_gflops = g, r.best_peer = peers[i]->name(), best_peer_index = i;
  }
  r.ratio = best_peer_gflops > 0 ? r.gflops / best_peer_gflops : 0;
  // Round by round, the best peer's time over ours: samples taken side by side share the
  // machine's phase, so the spread of these ratios is the uncertainty of `ratio`.
  const std::vector<double>& ours = m[best].samples_s;
  if (!r.best_peer.empty()) {
    const std::vector<double>& theirs = m[finalists.size() + best_peer_index].samples_s;
    std::vector<double> per_round;
    for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) per_round.push_back(theirs[i] / ours[i]);
    r.ratio_range = median_interval(per_round);
  }
  r.peak = measure_fma_peak_gflops(threads);
  r.roof = std::min(r.peak, memory_roof_gflops(w.flops(), bytes, r.bandwidth));
  // The same fraction round by round, each round's kernel over that round's roof: the host's
  // bandwidth drifts (the probe read 23-52 GB/s within one session on Zen 4), and the spread
  // of these is how far to trust fraction_of_roofline.
  const std::vector<double>& probe_s = m.back().samples_s;
  std::vector<double> per_round;
  for (size_t i = 0; i < std::min(ours.size(), probe_s.size()); ++i) {
    const double round_roof =
        std::min(r.peak, memory_roof_gflops(w.flops(), bytes, double(probe.bytes()) / probe_s[i] / 1e9));
    per_round.push_back(w.flops() / ours[i] / 1e9 / round_roof);
  }
  r.roof_range = median_interval(per_round);
  return r;
}

void print_json(const Report& r, const Workload& asked, const Workload& w, int threads, const Variants& v,
                double compile_median, double dispatch_ns) {
  Json j;
  j.begin_object()
      .field("workload", asked.text())
      .field("kernel_workload", w.text())
      .field("threads", threads)
      .field("constant_b", w.constant_b)
      .field("best_config", r.best_config)
      .field("gflops", r.gflops);
  // Every finalist, measured interleaved with the others: `--search exhaustive` over one knob
  // is then a paired comparison of its values.
  j.begin_array("finalists");
  for (const auto& [config, gflops] : r.finalists)
    j.begin_object().field("config", config).field("gflops", gflops).end_object();
  j.end_array().begin_object("peers");
  for (const PeerResult& p : r.peers) j.field(p.name, p.gflops);
  j.end_object();
  if (r.best_peer.empty()) j.null_field("best_peer").null_field("ratio_to_best_peer");
  else
    j.field("best_peer", r.best_peer)
        .field("ratio_to_best_peer", r.ratio)
        .begin_array("ratio_to_best_peer_ci95")
        .value(r.ratio_range.lo)
        .value(r.ratio_range.hi)
        .end_array();
  j.begin_array("peers_not_compared");
  for (const PeerResult& p : r.peers)
    if (!p.compared) j.value(p.name);
  j.end_array();
  j.begin_object("peer_detail");
  for (const PeerResult& p : r.peers) j.field(p.name, p.detail);
  j.end_object()
      .field("compile_ms_median", compile_median)
      .field("configs_measured", int64_t(v.kernels.size()))
      .field("configs_dropped", int64_t(v.dropped))
      .field("peak_gflops", r.peak)
      .field("fraction_of_peak", r.gflops / r.peak)
      .field("read_bandwidth_gbs", r.bandwidth)
      .field("roofline_gflops", r.roof)
      .field("fraction_of_roofline", r.gflops / r.roof)
      .begin_array("fraction_of_roofline_ci95")
      .value(r.roof_range.lo)
      .value(r.roof_range.hi)
      .end_array()
      .field("dispatch_ns", dispatch_ns)
      .end_object();
  std::printf("%s\n", j.str().c_str());
}

void print_table(const Report& r, const Workload& asked, const Workload& w, int threads, const Variants& v,
                 double compile_median, double dispatch_ns) {
  std::printf("workload     %s, %d thread%s\n", asked.text().c_str(), threads, threads > 1 ? "s" : "");
  if (!(w == asked)) std::printf("kernels      %s (the same memory)\n", w.text().c_str());
  std::printf("variants     %zu compiled and validated, %zu dropped; compile %.1f ms median\n", v.kernels.size(),
              v.dropped, compile_median);
  std::printf("livetune     %7.1f GFLOP/s  %s%s\n", r.gflops, r.best_config.c_str(),
              w.constant_b ? "  (constant B: packed once, outside the timed calls)" : "");
  for (const PeerResult& p : r.peers)
    std::printf("%-13s %7.1f GFLOP/s%s\n", p.name.c_str(), p.gflops,
                p.compared ? "" : "  (B packed once ahead: compare with --constant-b)");
  if (!r.best_peer.empty())
    std::printf("ratio        %.3fx the best peer (%s); paired by round, 95%% interval %.3f-%.3f\n", r.ratio,
                r.best_peer.c_str(), r.ratio_range.lo, r.ratio_range.hi);
  std::printf("roofline     %.1f GFLOP/s (FMA peak %.1f, read bandwidth %.1f GB/s): livetune at %.0f%%; paired by round,\n"
              "             95%% interval %.0f-%.0f%%\n",
              r.roof, r.peak, r.bandwidth, 100 * r.gflops / r.roof, 100 * r.roof_range.lo, 100 * r.roof_range.hi);
  std::printf("dispatch     %.1f ns per call over a direct kernel call\n", dispatch_ns);
}

}  // namespace

int cmd_bench(const std::vector<std::string>& argv) {
  auto valued = kWorkloadValued;
  valued.insert({"threads", "config", "search", "peers", "seed", "finalists"});
  auto switches = kWorkloadSwitches;
  switches.insert({"json", "constant-b"});
  Args args(argv, switches, valued);
  // The peers compute the workload as asked; our kernels its kernel form (the same memory).
  // With --constant-b, B is the caller's constant (ConstantMatrix), a workload of its own.
  const Workload asked = [&] {
    Workload x = workload_from(args);
    x.constant_b = args.has("constant-b");
    return x;
  }();
  const Workload w = asked.kernel_form();
  const int threads = int(args.get_int("threads", 1));
  if (threads < 1) throw std::invalid_argument("--threads: expected at least 1");
  const int64_t finalists = args.get_int("finalists", kFinalists);
  if (finalists < 1) throw std::invalid_argument("--finalists: expected at least 1");

  // 1. Compile and validate every variant on one thread. That thread started as the runtime's
  // does (LLVM's set-up done): with one variant, the set-up had made a 1024³ kernel's
  // compile_ms 33 ms.
  prepare_compile_thread();
  const std::vector<Config> configs =
      configs_to_try(w, threads, args.get("search"), args.get("config"), uint64_t(args.get_int("seed", 1)));
  const ValidationData data(w, uint64_t(args.get_int("seed", 1)));
  Variants variants = compile_variants(data, configs);
  PackedB packed(w, data);
  if (w.constant_b) keep_right_on_packed_b(variants, data, packed);

  // 2. Screen them; keep the fastest few.
  Executor exec(threads);
  // One call of kernel k writing into c, as every measurement below runs it.
  const CallMaker call = [&](const Kernel& k, float* c) -> std::function<void()> {
    const float* bp = packed.for_kernel(k);
    return [&exec, &data, &k, c, bp] { exec.run(k, k.workload.m, data.a(), data.b(), data.bias(), c, bp); };
  };
  const std::vector<KernelPtr> screened = rank_kernels(variants.kernels, data.c_init(), call, size_t(finalists));

  // 3. The finalists beside the peers.
  const Report report = measure_side_by_side(asked, w, threads, data, screened, call, peers_to_run(args));
  const double dispatch_ns = measure_dispatch_ns();
  const double compile_median = median(variants.compile_ms);
  if (args.has("json"))
    print_json(report, asked, w, threads, variants, compile_median, dispatch_ns);
  else
    print_table(report, asked, w, threads, variants, compile_median, dispatch_ns);
  return 0;
}

}  // namespace livetune::cli
