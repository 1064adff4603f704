// Host attention, fp32: the naive three-pass kernel (n×n scores in memory) and the tiled one
// (online softmax), n = 256 … 4096, d = 64, 4 heads; plus causal GQA cases. Validated row by row
// against the fp64 reference; the suite fits time against n.
#include <cmath>
#include <memory>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/attention.h"
#include "reference/attention.h"
#include "suites/attention/attention_suite.h"
#include "suites/common/host_buffer.h"
#include "suites/common/memory_guards.h"
#include "theory/attention.h"

namespace bb::suites {
namespace {

using reference::AttentionDims;

// Measured here (CI VM, 2 threads): worst |error| 2e-7 over |O| ≤ ~1 for d = 64; the bound leaves
// room for other machines' exp and reduction orders while catching any wrong row (errors ≥ 1e-2).
constexpr Tolerance kFp32Tolerance{1e-5, 1e-5};

class AttentionHost final : public Instance {
 public:
  AttentionHost(AttentionDims s, bool naive)
      : s_(s),
        naive_(naive),
        q_(allocate_host<float>(s.q_elements())),
        k_(allocate_host<float>(s.kv_elements())),
        v_(allocate_host<float>(s.kv_elements())),
        o_(allocate_host<float>(s.q_elements())),
        scores_(naive ? allocate_host<float>(s.batch * s.heads * s.n * s.n) : HostArray<float>{}) {
    for (std::size_t i = 0; i < s.q_elements(); ++i) q_[i] = reference::attention_test_value(1, i);
    for (std::size_t i = 0; i < s.kv_elements(); ++i) {
      k_[i] = reference::attention_test_value(2, i);
      v_[i] = reference::attention_test_value(3, i);
    }
  }
  Comparison validate() override {
    const std::size_t total = s_.q_elements();
    for (std::size_t i = 0; i < total; ++i) o_[i] = std::nanf("");  // poison
    run(nullptr);
    std::vector<double> out, ref, row(s_.d);
    bool unwritten = false;
    for (std::size_t i = 0; i < total; ++i) unwritten = unwritten || !std::isfinite(o_[i]);
    for (std::size_t b = 0; b < s_.batch; ++b)
      for (std::size_t h = 0; h < s_.heads; ++h)
        for (std::size_t i : reference::checked_rows(s_.n)) {
          reference::attention_row_fp64(s_, q_.get(), k_.get(), v_.get(), b, h, i, row.data());
          out.insert(out.end(), &o_[s_.q_row(b, h, i)], &o_[s_.q_row(b, h, i)] + s_.d);
          ref.insert(ref.end(), row.begin(), row.end());
        }
    if (unwritten) out.push_back(std::nan("")), ref.push_back(0);  // a row left poisoned fails
    return compare<double, double>(out, ref, kFp32Tolerance);
  }
  void run(gpu_stream) override {
    if (naive_)
      kernels::attention_naive_host(s_, q_.get(), k_.get(), v_.get(), scores_.get(), o_.get());
    else
      kernels::attention_tiled_host(s_, q_.get(), k_.get(), v_.get(), o_.get());
  }

 private:
  AttentionDims s_;
  bool naive_;
  HostArray<float> q_, k_, v_, o_, scores_;
};

Case attention_case(bool naive, AttentionDims s, bool sweep) {
  const std::string kernel = naive ? "naive" : "tiled";
  Case c{attention_case_name(kernel, "fp32", Backend::host, s, sweep), Backend::host,
         [s, naive, kernel, sweep](const CaseContext&) {
           const theory::AttentionShape shape = attention_shape(s, 4);
           Declared d;
           // Tiles and short rows live in the caches. Tiled: the compulsory bytes (Q, K, V, O
           // once), with its K/V re-reads per query block reported as tiled_bytes.
           d.work = work_of(naive ? theory::naive_attention_work(shape, kernels::kHostNaiveLayout)
                                  : theory::compulsory_attention_work(shape, 4),
                            theory::Precision::fp32, "hierarchy");
           d.params = attention_params(kernel, "fp32", s, sweep);
           if (!naive)
             d.params["tiled_bytes"] =
                 theory::tiled_attention_work(shape, kernels::kHostBlockRows, 4).bytes();
           d.params["extra_bytes"] =
               naive ? theory::naive_extra_bytes(shape, kernels::kHostNaiveLayout) : 0;
           d.params["threads"] = openmp_threads();
           d.host_memory_bytes = 4 * (2 * s.q_elements() + 2 * s.kv_elements()) +
                                 static_cast<std::uint64_t>(d.params["extra_bytes"].get<double>());
           return d;
         },
         [s, naive](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           check_host_memory(ctx.host, d.host_memory_bytes);  // as declared
           return std::make_unique<AttentionHost>(s, naive);
         },
         nullptr};
  c.sweep_point = sweep;
  // A sweep's sizes sampled in the same rounds: the exponent comes from per-round fits.
  if (sweep) c.pairing_group = "sweep/" + kernel;
  return c;
}

}  // namespace

std::vector<Case> attention_host_cases() {
  std::vector<Case> cases;
  for (bool naive : {true, false}) {
    // The sweep: n = 256 … 4096 (0.6 s per sample at 4096 here), quick runs too: five sizes keep
    // the exponent robust to one slow spell of a shared machine.
    for (std::size_t n = 256; n <= 4096; n *= 2)
      cases.push_back(attention_case(naive, {1, 4, 4, n, 64, false}, true));
    // Causal grouped-query attention (8 query heads on 2 K/V heads), d = 128, a ragged n.
    cases.push_back(attention_case(naive, {2, 8, 2, 700, 128, true}, false));
  }
  return cases;
}

}  // namespace bb::suites
