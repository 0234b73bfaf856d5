// oneDNN matmul primitive with bias and post-ops (sum for beta, eltwise for the activation), so
// the whole workload is one primitive call. With pack_b, B is reordered once in prepare() into
// the blocked layout the primitive asks for (format_tag::any), as a model's weights would be.
#include <omp.h>

#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "tools/peers/factories.hpp"

namespace livetune::peers {
namespace {

using dnnl::memory;
using dt = memory::data_type;

class OnednnPeer final : public Peer {
 public:
  explicit OnednnPeer(bool pack_b) : pack_b_(pack_b) {}

  std::string name() const override { return pack_b_ ? "onednn_packed" : "onednn"; }
  bool packs_b_ahead() const override { return pack_b_; }
  std::string detail() const override {
    return impl_.empty() ? "" : impl_ + ", " + std::to_string(threads_) + " OpenMP thread(s)";
  }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    threads_ = threads;
    // Kernel selection and blocking can depend on the thread count at creation.
    omp_set_num_threads(threads);
    engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0);
    stream_ = dnnl::stream(engine_);

    memory::desc a_md({w.m, w.k}, dt::f32, memory::dims{w.lda, 1});
    // B is always described as K×N; trans_b only changes its strides.
    memory::desc b_user_md({w.k, w.n}, dt::f32, w.trans_b ? memory::dims{1, w.ldb} : memory::dims{w.ldb, 1});
    memory::desc b_md = pack_b_ ? memory::desc({w.k, w.n}, dt::f32, memory::format_tag::any) : b_user_md;
    memory::desc bias_md({1, w.n}, dt::f32, memory::format_tag::ab);
    memory::desc c_md({w.m, w.n}, dt::f32, memory::dims{w.ldc, 1});

    dnnl::post_ops ops;
    if (w.beta != 0.0f) ops.append_sum(w.beta);
    if (w.act == ActivationKind::relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    if (w.act == ActivationKind::gelu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);

    auto desc = w.bias ? dnnl::matmul::desc(a_md, b_md, bias_md, c_md) : dnnl::matmul::desc(a_md, b_md, c_md);
    dnnl::matmul::primitive_desc pd(desc, attr, engine_);
    impl_ = pd.impl_info_str();
    matmul_ = dnnl::matmul(pd);

    // oneDNN takes non-const handles; it only reads src, weights and bias.
    memory b_user(b_user_md, engine_, const_cast<float*>(b));
    memory b_mem = b_user;
    if (pack_b_) {
      b_mem = memory(pd.weights_desc(), engine_);
      dnnl::reorder(b_user, b_mem).execute(stream_, b_user, b_mem);
      stream_.wait();
    }
    args_ = {{DNNL_ARG_SRC, memory(a_md, engine_, const_cast<float*>(a))},
             {DNNL_ARG_WEIGHTS, b_mem},
             {DNNL_ARG_DST, memory(c_md, engine_, c)}};
    if (w.bias) args_[DNNL_ARG_BIAS] = memory(bias_md, engine_, const_cast<float*>(bias));
  }

  void run() override {
    // The OpenMP thread count belongs to the calling thread, which may not be the one that prepared.
    omp_set_num_threads(threads_);
    matmul_.execute(stream_, args_);
    stream_.wait();
  }

 private:
  bool pack_b_;
  int threads_ = 1;
  std::string impl_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::matmul matmul_;
  std::unordered_map<int, memory> args_;
};

}  // namespace

std::unique_ptr<Peer> make_onednn(bool pack_b) { return std::make_unique<OnednnPeer>(pack_b); }

}  // namespace livetune::peers
