// CUDA backend: one GPU per rank (local rank), GEMMs through cuBLAS (fp32/fp16/bf16), gradient
// all-reduces through NCCL (communicator bootstrapped over MPI). Each phase is bracketed by
// CUDA events; at the end of a step they are mapped onto the host clock through a reference
// event whose host time was read when it completed, then recorded with stepclock_record.

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "../backend.hpp"
#include "kernels.hpp"
#include "stepclock/stepclock.hpp"

namespace synthetic {
namespace {

using cuda::DeviceType;

void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(rc));
  }
}
void check_cublas(cublasStatus_t rc, const char* what) {
  if (rc != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS ") + what + ": status " + std::to_string(rc));
  }
}
void check_nccl(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) {
    throw std::runtime_error(std::string("NCCL ") + what + ": " + ncclGetErrorString(rc));
  }
}

struct DtypeInfo {
  DeviceType device;
  cudaDataType_t blas;
  ncclDataType_t nccl;
  std::size_t size;
};

DtypeInfo dtype_info(const std::string& dtype) {
  if (dtype == "fp32") return {DeviceType::kF32, CUDA_R_32F, ncclFloat32, 4};
  if (dtype == "fp16") return {DeviceType::kF16, CUDA_R_16F, ncclFloat16, 2};
  if (dtype == "bf16") return {DeviceType::kBF16, CUDA_R_16BF, ncclBfloat16, 2};
  throw std::invalid_argument("model.dtype '" + dtype +
                              "' is not supported by the cuda backend (fp32, fp16, bf16)");
}

// One phase's device events, filled in issue order and read back at the end of the step.
struct TimedPhase {
  cudaEvent_t begin = nullptr;
  cudaEvent_t end = nullptr;
  stepclock_event event{};
};

class CudaBackend final : public Backend, private BackendSetup {
 public:
  CudaBackend(const stepmodel::RunConfig& config, const RankInjections& injections, int rank,
              int ranks)
      : BackendSetup(config, injections, rank, ranks), type_(dtype_info(config.model.dtype)) {
    int devices = 0;
    const cudaError_t rc = cudaGetDeviceCount(&devices);
    if (rc != cudaSuccess || devices == 0) {
      throw std::runtime_error(
          std::string("backend cuda: no CUDA device visible (") +
          (rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices") +
          "); the cuda backend never falls back to the CPU: run on a GPU node or use backend "
          "cpu");
    }
    device_ = stepclock::host_ranks(MPI_COMM_WORLD).rank % devices;
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp props{};
    check_cuda(cudaGetDeviceProperties(&props, device_), "cudaGetDeviceProperties");
    device_name_ = props.name;

    ncclUniqueId id{};
    if (rank_ == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    check_nccl(ncclCommInitRank(&nccl_, ranks_, id, rank_), "ncclCommInitRank");

    check_cuda(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), "stream");
    check_cuda(cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking), "stream");
    check_cublas(cublasCreate(&blas_), "cublasCreate");
    check_cublas(cublasSetStream(blas_, compute_), "cublasSetStream");

    extra_rows_ = gemm_factor_ > 1.0
                      ? static_cast<int>(std::lround((gemm_factor_ - 1.0) * model_.tokens))
                      : 0;
    const std::int64_t rows = std::max(model_.tokens, extra_rows_);
    const std::int64_t activations = rows * model_.hidden;
    const std::int64_t parameters = layer_elems_ * model_.layers;
    x_ = allocate(activations, 1);
    y_ = allocate(activations, 2);
    dy_ = allocate(activations, 3);
    dx_ = allocate(activations, 4);
    scratch_ = allocate(std::max(activations, layer_elems_), 5);
    weights_ = allocate(parameters, 6);
    momentum_ = allocate(parameters, 7);
    gradients_ = allocate(parameters, 8);
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&check_), parameters * sizeof(float)),
               "cudaMalloc");
    host_check_.resize(static_cast<std::size_t>(parameters));

    const std::size_t phases = stepmodel::step_schedule(model_).size();
    timed_.resize(phases);
    for (TimedPhase& t : timed_) {
      check_cuda(cudaEventCreate(&t.begin), "cudaEventCreate");
      check_cuda(cudaEventCreate(&t.end), "cudaEventCreate");
    }
    check_cuda(cudaEventCreate(&reference_), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&comm_done_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaDeviceSynchronize(), "initialization");
  }

  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  ~CudaBackend() override {
    cudaDeviceSynchronize();
    for (TimedPhase& t : timed_) {
      cudaEventDestroy(t.begin);
      cudaEventDestroy(t.end);
    }
    cudaEventDestroy(reference_);
    cudaEventDestroy(ready_);
    cudaEventDestroy(comm_done_);
    for (void* p : {x_, y_, dy_, dx_, scratch_, weights_, momentum_, gradients_}) cudaFree(p);
    cudaFree(check_);
    cublasDestroy(blas_);
    ncclCommDestroy(nccl_);
    cudaStreamDestroy(compute_);
    cudaStreamDestroy(comm_);
  }

  void begin_step(int) override {
    // The device is idle here (end_step synchronized), so the reference event completes at
    // once and the host clock read right after it maps device time onto host time.
    used_ = 0;
    check_cuda(cudaEventRecord(reference_, compute_), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(reference_), "cudaEventSynchronize");
    reference_host_ns_ = stepclock_now();
  }

  void compute(const PhaseWork& work) override {
    const stepmodel::Phase& p = *work.phase;
    if (p.name == stepmodel::kOptimizer && model_.overlap) {
      check_cuda(cudaEventRecord(comm_done_, comm_), "cudaEventRecord");
      check_cuda(cudaStreamWaitEvent(compute_, comm_done_, 0), "cudaStreamWaitEvent");
    }
    TimedPhase& t = next(work, STEPCLOCK_COMPUTE, phase_ids(work), 0);
    check_cuda(cudaEventRecord(t.begin, compute_), "cudaEventRecord");
    delay_on(compute_, work.delay);
    if (p.name == stepmodel::kOptimizer) {
      if (model_.compute == "sleep") {
        cuda::launch_spin(
            static_cast<std::int64_t>(static_cast<double>(p.bytes) / model_.mem_bytes_per_s * 1e9),
            compute_);
      } else {
        cuda::launch_optimizer(weights_, momentum_, gradients_, layer_elems_ * model_.layers,
                               type_.device, compute_);
      }
    } else {
      run_gemm(p, work.step);
    }
    check_cuda(cudaEventRecord(t.end, compute_), "cudaEventRecord");
  }

  void allreduce(const PhaseWork& work) override {
    const stepmodel::Phase& p = *work.phase;
    const stepmodel::Bucket& bucket = buckets_[static_cast<std::size_t>(p.seq)];
    cudaStream_t stream = compute_;
    if (p.asynchronous) {
      // The bucket's gradients are final once the compute stream reaches this point.
      check_cuda(cudaEventRecord(ready_, compute_), "cudaEventRecord");
      check_cuda(cudaStreamWaitEvent(comm_, ready_, 0), "cudaStreamWaitEvent");
      stream = comm_;
    }
    delay_on(stream, work.delay);  // late arrival: before the call entry
    TimedPhase& t = next(work, STEPCLOCK_COLLECTIVE, phase_ids(work), stream == comm_ ? 1 : 0);
    char* data = static_cast<char*>(gradients_) +
                 bucket.first_layer * layer_elems_ * static_cast<std::int64_t>(type_.size);
    const auto count =
        static_cast<std::size_t>((bucket.last_layer - bucket.first_layer + 1) * layer_elems_);
    check_cuda(cudaEventRecord(t.begin, stream), "cudaEventRecord");
    check_nccl(ncclAllReduce(data, data, count, type_.nccl, ncclSum, nccl_, stream),
               "ncclAllReduce");
    check_cuda(cudaEventRecord(t.end, stream), "cudaEventRecord");
  }

  void end_step(int) override {
    check_cuda(cudaStreamSynchronize(comm_), "step (comm stream)");
    check_cuda(cudaStreamSynchronize(compute_), "step (compute stream)");
    for (std::size_t i = 0; i < used_; ++i) {
      TimedPhase& t = timed_[i];
      float begin_ms = 0;
      float end_ms = 0;
      check_cuda(cudaEventElapsedTime(&begin_ms, reference_, t.begin), "cudaEventElapsedTime");
      check_cuda(cudaEventElapsedTime(&end_ms, reference_, t.end), "cudaEventElapsedTime");
      t.event.begin_ns = reference_host_ns_ + static_cast<std::int64_t>(begin_ms * 1e6);
      t.event.end_ns = reference_host_ns_ + static_cast<std::int64_t>(end_ms * 1e6);
      stepclock::check(stepclock_record(&t.event), "recording a device event");
    }
  }

  void verify_step(int step) override {
    const std::int64_t n = layer_elems_ * model_.layers;
    cuda::launch_to_float(gradients_, check_, n, type_.device, compute_);
    check_cuda(cudaMemcpyAsync(host_check_.data(), check_, n * sizeof(float),
                               cudaMemcpyDeviceToHost, compute_),
               "cudaMemcpy");
    check_cuda(cudaStreamSynchronize(compute_), "gradient check");
    const double tolerance = type_.size == 4 ? 0.0 : 1e-2;
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      for (int layer = buckets_[b].first_layer; layer <= buckets_[b].last_layer; ++layer) {
        for (std::int64_t i = 0; i < layer_elems_; ++i) {
          const double got = host_check_[static_cast<std::size_t>(layer * layer_elems_ + i)];
          const double expected = gradient_pattern_sum(ranks_, i, step);
          if (std::abs(got - expected) > tolerance * expected) {
            throw std::runtime_error("gradient check failed after NCCL all-reduce: step " +
                                     std::to_string(step) + ", bucket " + std::to_string(b) +
                                     ", layer " + std::to_string(layer) + ", element " +
                                     std::to_string(i) + ": got " + std::to_string(got) +
                                     ", expected " + std::to_string(expected));
          }
        }
      }
      ++verified_;
    }
  }

  std::vector<std::pair<std::string, std::string>> provenance() const override {
    int runtime = 0;
    int driver = 0;
    int nccl = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    ncclGetVersion(&nccl);
    return {{"cuda_runtime", std::to_string(runtime)},
            {"cuda_driver", std::to_string(driver)},
            {"nccl", std::to_string(nccl)},
            {"device", std::to_string(device_) + ": " + device_name_},
            {"gemm_time_factor", std::to_string(gemm_factor_)},
            {"gradient_check",
             "passed: " + std::to_string(verified_) + " all-reduced buckets verified"}};
  }

 private:
  void* allocate(std::int64_t n, std::uint64_t seed) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, static_cast<std::size_t>(n) * type_.size), "cudaMalloc");
    cuda::launch_fill_random(p, n, type_.device, seed * 1000003ULL + rank_, compute_);
    return p;
  }

  TimedPhase& next(const PhaseWork& work, stepclock_kind kind, stepclock_ids ids,
                   std::int16_t stream) {
    TimedPhase& t = timed_.at(used_++);
    t.event.kind = kind;
    t.event.name = work.name;
    t.event.ids = ids;
    t.event.device = static_cast<std::int16_t>(device_);
    t.event.stream = stream;
    return t;
  }

  // Host modes wait for the stream to reach this point first, so the delay lands inside the
  // phase's device interval rather than being hidden by the launch queue.
  void delay_on(cudaStream_t stream, const PhaseDelay& delay) {
    if (delay.sleep_ms > 0 || delay.spin_ms > 0) {
      check_cuda(cudaStreamSynchronize(stream), "delay");
      spend_on_host(delay);
    }
    if (delay.gpu_ms > 0) cuda::launch_spin(static_cast<std::int64_t>(delay.gpu_ms * 1e6), stream);
  }

  // Row-major C(m x n) = op(A) op(B) through column-major cuBLAS: C^T = op(B)^T op(A)^T.
  void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* a,
            const void* b, float beta, void* c) {
    const float alpha = 1.0f;
    const int h = model_.hidden;
    check_cublas(cublasGemmEx(blas_, tb, ta, n, m, k, &alpha, b, type_.blas, h, a, type_.blas, h,
                              &beta, c, type_.blas, h, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  }

  void run_gemm(const stepmodel::Phase& p, int step) {
    const int t = model_.tokens;
    const int h = model_.hidden;
    const std::int64_t layer_bytes = layer_elems_ * static_cast<std::int64_t>(type_.size);
    void* w = static_cast<char*>(weights_) + p.layer * layer_bytes;
    void* g = static_cast<char*>(gradients_) + p.layer * layer_bytes;
    if (model_.compute == "sleep") {
      cuda::launch_spin(
          static_cast<std::int64_t>(p.flops / model_.flops_per_s * gemm_factor_ * 1e9), compute_);
    } else if (p.name == stepmodel::kGemmFwd) {
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, t, h, h, x_, w, 0.0f, y_);
      if (extra_rows_ > 0) gemm(CUBLAS_OP_N, CUBLAS_OP_N, extra_rows_, h, h, x_, w, 0.0f, y_);
    } else if (p.name == stepmodel::kGemmDgrad) {
      gemm(CUBLAS_OP_N, CUBLAS_OP_T, t, h, h, dy_, w, 0.0f, dx_);
      if (extra_rows_ > 0) gemm(CUBLAS_OP_N, CUBLAS_OP_T, extra_rows_, h, h, dy_, w, 0.0f, dx_);
    } else {
      gemm(CUBLAS_OP_T, CUBLAS_OP_N, h, h, t, x_, dy_, p.microbatch == 0 ? 0.0f : 1.0f, g);
      if (extra_rows_ > 0) {
        gemm(CUBLAS_OP_T, CUBLAS_OP_N, h, h, extra_rows_, x_, dy_, 0.0f, scratch_);
      }
    }
    if (p.name == stepmodel::kGemmWgrad && p.microbatch == model_.microbatches - 1) {
      cuda::launch_fill_pattern(g, layer_elems_, type_.device, rank_, step, compute_);
    }
  }

  DtypeInfo type_;
  int extra_rows_ = 0;
  int device_ = 0;
  std::string device_name_;
  ncclComm_t nccl_ = nullptr;
  cudaStream_t compute_ = nullptr;
  cudaStream_t comm_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  void* x_ = nullptr;
  void* y_ = nullptr;
  void* dy_ = nullptr;
  void* dx_ = nullptr;
  void* scratch_ = nullptr;
  void* weights_ = nullptr;
  void* momentum_ = nullptr;
  void* gradients_ = nullptr;
  float* check_ = nullptr;
  std::vector<float> host_check_;
  std::vector<TimedPhase> timed_;
  std::size_t used_ = 0;
  cudaEvent_t reference_ = nullptr;
  cudaEvent_t ready_ = nullptr;
  cudaEvent_t comm_done_ = nullptr;
  std::int64_t reference_host_ns_ = 0;
  std::int64_t verified_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const stepmodel::RunConfig& config,
                                           const RankInjections& injections, int rank, int ranks) {
  return std::make_unique<CudaBackend>(config, injections, rank, ranks);
}

}  // namespace synthetic
