// CPU backend: GEMMs through OpenBLAS (threads per rank from the model, default 1), gradient
// all-reduces through MPI (blocking in bucket order, or on a communication thread with overlap).

#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include "../backend.hpp"
#include "comm_thread.hpp"
#include "stepclock/stepclock.hpp"

namespace synthetic {
namespace {

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const double* a, int lda,
          const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

template <typename T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 8 ? MPI_DOUBLE : MPI_FLOAT;
}

template <typename T>
class CpuBackend final : public Backend, private BackendSetup {
 public:
  CpuBackend(const stepmodel::RunConfig& config, const RankInjections& injections, int rank,
             int ranks)
      : BackendSetup(config, injections, rank, ranks) {
    openblas_set_num_threads(model_.threads);
    // A slower GEMM is modelled as proportionally more GEMM work: extra rows.
    extra_rows_ = gemm_factor_ > 1.0
                      ? static_cast<int>(std::lround((gemm_factor_ - 1.0) * model_.tokens))
                      : 0;
    const int rows = std::max(model_.tokens, extra_rows_);
    const std::size_t activations = static_cast<std::size_t>(rows) * model_.hidden;
    const auto parameters = static_cast<std::size_t>(layer_elems_ * model_.layers);
    std::mt19937 random(static_cast<unsigned>(config.seed + static_cast<unsigned>(rank)));
    std::uniform_real_distribution<double> uniform(-0.5, 0.5);
    auto fill = [&](std::vector<T>& v, std::size_t n) {
      v.resize(n);
      for (T& x : v) x = static_cast<T>(uniform(random));
    };
    if (model_.compute == "gemm") {
      fill(x_, activations);
      fill(y_, activations);
      fill(dy_, activations);
      fill(dx_, activations);
      fill(scratch_, activations > static_cast<std::size_t>(layer_elems_)
                         ? activations
                         : static_cast<std::size_t>(layer_elems_));
      fill(weights_, parameters);
      momentum_.assign(parameters, T(0));
    }
    gradients_.assign(parameters, T(0));
    if (model_.overlap) comm_ = std::make_unique<CommThread>(MPI_COMM_WORLD, buckets_.size());
  }

  void begin_step(int) override {}

  void compute(const PhaseWork& work) override {
    const stepmodel::Phase& p = *work.phase;
    if (p.name == stepmodel::kOptimizer && comm_) comm_->wait_all();
    const stepclock_region region = stepclock_begin(STEPCLOCK_COMPUTE, work.name, phase_ids(work));
    spend_on_host(work.delay);
    if (p.name == stepmodel::kOptimizer) {
      optimizer(p);
    } else {
      run_gemm(p, work.step);
    }
    stepclock_end(region);
  }

  void allreduce(const PhaseWork& work) override {
    const stepmodel::Phase& p = *work.phase;
    const stepmodel::Bucket& bucket = buckets_[static_cast<std::size_t>(p.seq)];
    allreduce_phase(work, gradients_.data() + bucket.first_layer * layer_elems_,
                    static_cast<int>((bucket.last_layer - bucket.first_layer + 1) * layer_elems_),
                    mpi_type<T>(), comm_.get(), "bucket");
  }

  void end_step(int) override {
    if (comm_) comm_->wait_all();
  }

  void verify_step(int step) override {
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      const stepmodel::Bucket& bucket = buckets_[b];
      for (int layer = bucket.first_layer; layer <= bucket.last_layer; ++layer) {
        const T* g = gradients_.data() + layer * layer_elems_;
        for (std::int64_t i = 0; i < layer_elems_; ++i) {
          const double expected = gradient_pattern_sum(ranks_, i, step);
          if (static_cast<double>(g[i]) != expected) {
            throw std::runtime_error(
                "gradient check failed after all-reduce: step " + std::to_string(step) +
                ", bucket " + std::to_string(b) + ", layer " + std::to_string(layer) +
                ", element " + std::to_string(i) + ": got " + std::to_string(g[i]) + ", expected " +
                std::to_string(expected) + " (sum over " + std::to_string(ranks_) + " ranks)");
          }
        }
      }
      ++verified_;
    }
  }

  std::vector<std::pair<std::string, std::string>> provenance() const override {
    return {{"blas", openblas_get_config()},
            {"blas_threads", std::to_string(model_.threads)},
            {"gemm_time_factor", std::to_string(gemm_factor_)},
            {"gradient_check",
             "passed: " + std::to_string(verified_) + " all-reduced buckets verified"}};
  }

 private:
  void run_gemm(const stepmodel::Phase& p, int step) {
    const int t = model_.tokens;
    const int h = model_.hidden;
    if (model_.compute == "sleep") {
      sleep_for_ns(static_cast<std::int64_t>(p.flops / model_.flops_per_s * gemm_factor_ * 1e9));
    } else {
      T* w = weights_.data() + p.layer * layer_elems_;
      T* g = gradients_.data() + p.layer * layer_elems_;
      if (p.name == stepmodel::kGemmFwd) {
        gemm(CblasNoTrans, CblasNoTrans, t, h, h, x_.data(), h, w, h, T(0), y_.data(), h);
        if (extra_rows_ > 0) {
          gemm(CblasNoTrans, CblasNoTrans, extra_rows_, h, h, x_.data(), h, w, h, T(0), y_.data(),
               h);
        }
      } else if (p.name == stepmodel::kGemmDgrad) {
        gemm(CblasNoTrans, CblasTrans, t, h, h, dy_.data(), h, w, h, T(0), dx_.data(), h);
        if (extra_rows_ > 0) {
          gemm(CblasNoTrans, CblasTrans, extra_rows_, h, h, dy_.data(), h, w, h, T(0), dx_.data(),
               h);
        }
      } else {
        // Weight gradient accumulates over microbatches.
        const T beta = p.microbatch == 0 ? T(0) : T(1);
        gemm(CblasTrans, CblasNoTrans, h, h, t, x_.data(), h, dy_.data(), h, beta, g, h);
        if (extra_rows_ > 0) {
          gemm(CblasTrans, CblasNoTrans, h, h, extra_rows_, x_.data(), h, dy_.data(), h, T(0),
               scratch_.data(), h);
        }
      }
    }
    // The last microbatch's weight gradient is final: replace it by the known pattern so the
    // all-reduce result can be checked exactly.
    if (p.name == stepmodel::kGemmWgrad && p.microbatch == model_.microbatches - 1) {
      T* g = gradients_.data() + p.layer * layer_elems_;
      for (std::int64_t i = 0; i < layer_elems_; ++i) {
        g[i] = static_cast<T>(gradient_pattern(rank_, i, step));
      }
    }
  }

  void optimizer(const stepmodel::Phase& p) {
    if (model_.compute == "sleep") {
      sleep_for_ns(
          static_cast<std::int64_t>(static_cast<double>(p.bytes) / model_.mem_bytes_per_s * 1e9));
      return;
    }
    // SGD with momentum; a tiny rate keeps the weights (and so the GEMM inputs) bounded.
    const T rate = static_cast<T>(1e-9);
    const T beta = static_cast<T>(0.9);
    const std::size_t n = weights_.size();
    T* w = weights_.data();
    T* m = momentum_.data();
    const T* g = gradients_.data();
    for (std::size_t i = 0; i < n; ++i) {
      m[i] = beta * m[i] + g[i];
      w[i] -= rate * m[i];
    }
  }

  int extra_rows_ = 0;
  std::vector<T> x_, y_, dy_, dx_, scratch_, weights_, momentum_, gradients_;
  std::unique_ptr<CommThread> comm_;
  std::int64_t verified_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const stepmodel::RunConfig& config,
                                          const RankInjections& injections, int rank, int ranks) {
  if (config.model.dtype == "fp64") {
    return std::make_unique<CpuBackend<double>>(config, injections, rank, ranks);
  }
  if (config.model.dtype != "fp32") {
    throw std::invalid_argument("model.dtype '" + config.model.dtype +
                                "' needs backend cuda; the cpu backend supports fp32 and fp64");
  }
  return std::make_unique<CpuBackend<float>>(config, injections, rank, ranks);
}

}  // namespace synthetic
