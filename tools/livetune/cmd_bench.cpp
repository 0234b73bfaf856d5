// Compiles and measures JIT variants of one workload beside the peer libraries, on the same
// data in the same run: a screen of every valid variant, then the best few interleaved with
// the peers (medians of several samples) — the ratios are what count.
#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

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

  // 1. Compile and validate every variant on one thread, as the runtime's background compiler
  // does, so that compile_ms is the latency of one variant and not a share of a busy machine.
  // That thread started as the runtime's does (LLVM's set-up done): with one variant, the
  // set-up had made a 1024³ kernel's compile_ms 33 ms.
  prepare_compile_thread();
  const std::vector<Config> configs =
      configs_to_try(w, threads, args.get("search"), args.get("config"), uint64_t(args.get_int("seed", 1)));
  const ValidationData data(w, uint64_t(args.get_int("seed", 1)));
  std::vector<Compiled> compiled = compile_and_validate(data, configs, 1);
  std::vector<double> compile_ms;
  std::vector<KernelPtr> kernels;
  for (const Compiled& c : compiled) {
    if (c.kernel) {
      kernels.push_back(c.kernel);
      compile_ms.push_back(c.kernel->compile_ms);
    } else {
      std::fprintf(stderr, "livetune bench: variant '%s' dropped: %s\n", c.config.text().c_str(), c.error.c_str());
    }
  }
  if (kernels.empty()) throw std::runtime_error("no variant compiled and validated");

  // Kernels that pack a constant B read it packed once, outside the timed calls, one copy per
  // layout; others read B itself.
  const bool constant_b = w.constant_b;
  std::map<std::string, std::unique_ptr<float, decltype(&std::free)>> packed_b;
  auto prepacked_b = [&](const Kernel& k) -> const float* {
    if (!constant_b || !k.takes_packed_b()) return nullptr;
    auto it = packed_b.find(k.b_layout);
    if (it == packed_b.end()) {
      const size_t bytes = (size_t(packed_b_floats(w, k.gemm)) * sizeof(float) + 63) / 64 * 64;
      float* buf = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (!buf) throw std::bad_alloc();
      pack_whole_b(k, data.b(), buf);
      it = packed_b.emplace(k.b_layout, std::unique_ptr<float, decltype(&std::free)>(buf, &std::free)).first;
    }
    return it->second.get();
  };
  if (constant_b) {
    // The prepacked path is what will be timed: check it as compile_and_validate checked the other.
    std::vector<KernelPtr> checked;
    Executor serial(1);
    for (const KernelPtr& k : kernels) {
      Floats c = data.c_init();
      serial.run(*k, k->workload.m, data.a(), data.b(), data.bias(), c.data(), prepacked_b(*k));
      if (std::string why = data.check_output(c); why.empty())
        checked.push_back(k);
      else
        std::fprintf(stderr, "livetune bench: variant '%s' dropped on packed B: %s\n", k->config.text().c_str(),
                     why.c_str());
    }
    kernels = std::move(checked);
    if (kernels.empty()) throw std::runtime_error("no variant computed the right result on packed B");
  }

  // 2. Screen them; keep the fastest few.
  Executor exec(threads);
  // One call of kernel k writing into c, as every measurement below runs it.
  auto call = [&](const Kernel& k, float* c) -> std::function<void()> {
    const float* bp = prepacked_b(k);
    return [&exec, &data, &k, c, bp] { exec.run(k, k.workload.m, data.a(), data.b(), data.bias(), c, bp); };
  };
  const std::vector<KernelPtr> screened = rank_kernels(kernels, data.c_init(), call, size_t(finalists));
  std::vector<Floats> outputs(screened.size(), data.c_init());

  // 3. Finalists, peers and the read-bandwidth probe, interleaved, each writing its own copy of C.
  std::vector<std::function<void()>> fns;
  for (size_t i = 0; i < screened.size(); ++i) fns.push_back(call(*screened[i], outputs[i].data()));
  std::vector<std::unique_ptr<peers::Peer>> peers;
  std::vector<Floats> peer_outputs;
  for (const std::string& name : peers_to_run(args)) peers.push_back(peers::make_peer(name));
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
  const double bandwidth = double(probe.bytes()) / m.back().median_s / 1e9;

  size_t best = 0;
  for (size_t i = 1; i < screened.size(); ++i)
    if (m[i].median_s < m[best].median_s) best = i;
  const double gflops = w.flops() / m[best].median_s / 1e9;
  std::string best_peer;
  double best_peer_gflops = 0;
  size_t best_peer_index = 0;  // into peers
  struct PeerResult {
    std::string name;
    double gflops;
    bool compared;  // false: the peer did less work per call than livetune did here
  };
  std::vector<PeerResult> peer_results;
  for (size_t i = 0; i < peers.size(); ++i) {
    const double g = w.flops() / m[screened.size() + i].median_s / 1e9;
    const bool compared = constant_b || !peers[i]->packs_b_ahead();
    peer_results.push_back({peers[i]->name(), g, compared});
    if (compared && g > best_peer_gflops) best_peer_gflops = g, best_peer = peers[i]->name(), best_peer_index = i;
  }
  const double ratio = best_peer_gflops > 0 ? gflops / best_peer_gflops : 0;
  // Round by round, the best peer's time over ours: samples taken side by side share the
  // machine's phase, so the spread of these ratios is the uncertainty of `ratio`.
  Interval ratio_range;
  if (!best_peer.empty()) {
    const std::vector<double>& ours = m[best].samples_s;
    const std::vector<double>& theirs = m[screened.size() + best_peer_index].samples_s;
    std::vector<double> per_round;
    for (size_t r = 0; r < std::min(ours.size(), theirs.size()); ++r) per_round.push_back(theirs[r] / ours[r]);
    ratio_range = median_interval(per_round);
  }
  const double peak = measure_fma_peak_gflops(threads);
  const double roof = std::min(peak, memory_roof_gflops(w.flops(), bytes, bandwidth));
  // The same fraction round by round, each round's kernel over that round's roof: the host's
  // bandwidth drifts (the probe read 23-52 GB/s within one session on Zen 4), and the spread
  // of these is how far to trust fraction_of_roofline.
  Interval roof_range;
  {
    const std::vector<double>& ours = m[best].samples_s;
    const std::vector<double>& probe_s = m.back().samples_s;
    std::vector<double> per_round;
    for (size_t r = 0; r < std::min(ours.size(), probe_s.size()); ++r) {
      const double round_roof =
          std::min(peak, memory_roof_gflops(w.flops(), bytes, double(probe.bytes()) / probe_s[r] / 1e9));
      per_round.push_back(w.flops() / ours[r] / 1e9 / round_roof);
    }
    roof_range = median_interval(per_round);
  }
  const double dispatch_ns = measure_dispatch_ns();
  const double compile_median = median(compile_ms);
  const std::string best_config = screened[best]->config.text();

  if (args.has("json")) {
    Json j;
    j.begin_object()
        .field("workload", asked.text())
        .field("kernel_workload", w.text())
        .field("threads", threads)
        .field("constant_b", constant_b)
        .field("best_config", best_config)
        .field("gflops", gflops);
    // Every finalist, measured interleaved with the others: `--search exhaustive` over one knob
    // is then a paired comparison of its values.
    j.begin_array("finalists");
    for (size_t i = 0; i < screened.size(); ++i)
      j.begin_object().field("config", screened[i]->config.text()).field("gflops", w.flops() / m[i].median_s / 1e9).end_object();
    j.end_array().begin_object("peers");
    for (const PeerResult& p : peer_results) j.field(p.name, p.gflops);
    j.end_object();
    if (best_peer.empty()) j.null_field("best_peer").null_field("ratio_to_best_peer");
    else
      j.field("best_peer", best_peer)
          .field("ratio_to_best_peer", ratio)
          .begin_array("ratio_to_best_peer_ci95")
          .value(ratio_range.lo)
          .value(ratio_range.hi)
          .end_array();
    j.begin_array("peers_not_compared");
    for (const PeerResult& p : peer_results)
      if (!p.compared) j.value(p.name);
    j.end_array();
    j.begin_object("peer_detail");
    for (const auto& peer : peers) j.field(peer->name(), peer->detail());
    j.end_object()
        .field("compile_ms_median", compile_median)
        .field("configs_measured", int64_t(kernels.size()))
        .field("configs_dropped", int64_t(compiled.size() - kernels.size()))
        .field("peak_gflops", peak)
        .field("fraction_of_peak", gflops / peak)
        .field("read_bandwidth_gbs", bandwidth)
        .field("roofline_gflops", roof)
        .field("fraction_of_roofline", gflops / roof)
        .begin_array("fraction_of_roofline_ci95")
        .value(roof_range.lo)
        .value(roof_range.hi)
        .end_array()
        .field("dispatch_ns", dispatch_ns)
        .end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  }
  std::printf("workload     %s, %d thread%s\n", asked.text().c_str(), threads, threads > 1 ? "s" : "");
  if (!(w == asked)) std::printf("kernels      %s (the same memory)\n", w.text().c_str());
  std::printf("variants     %zu compiled and validated, %zu dropped; compile %.1f ms median\n", kernels.size(),
              compiled.size() - kernels.size(), compile_median);
  std::printf("livetune     %7.1f GFLOP/s  %s%s\n", gflops, best_config.c_str(),
              constant_b ? "  (constant B: packed once, outside the timed calls)" : "");
  for (const PeerResult& p : peer_results)
    std::printf("%-13s %7.1f GFLOP/s%s\n", p.name.c_str(), p.gflops,
                p.compared ? "" : "  (B packed once ahead: compare with --constant-b)");
  if (!best_peer.empty())
    std::printf("ratio        %.3fx the best peer (%s); paired by round, 95%% interval %.3f-%.3f\n", ratio,
                best_peer.c_str(), ratio_range.lo, ratio_range.hi);
  std::printf("roofline     %.1f GFLOP/s (FMA peak %.1f, read bandwidth %.1f GB/s): livetune at %.0f%%; paired by round,\n"
              "             95%% interval %.0f-%.0f%%\n",
              roof, peak, bandwidth, 100 * gflops / roof, 100 * roof_range.lo, 100 * roof_range.hi);
  std::printf("dispatch     %.1f ns per call over a direct kernel call\n", dispatch_ns);
  return 0;
}

}  // namespace livetune::cli
