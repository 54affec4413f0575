#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels.hpp"

namespace synthetic::cuda {
namespace {

constexpr int kThreads = 256;

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(std::int64_t ns) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < static_cast<std::uint64_t>(ns)) {
  }
}

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
__device__ float to_float(float v) {
  return v;
}
__device__ float to_float(__half v) {
  return __half2float(v);
}
__device__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename T>
__global__ void fill_random_kernel(T* data, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t x = (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ULL ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    data[i] = from_float<T>(static_cast<float>(x >> 40) / static_cast<float>(1 << 24) - 0.5f);
  }
}

template <typename T>
__global__ void fill_pattern_kernel(T* data, std::int64_t n, int rank, int step) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    data[i] = from_float<T>(static_cast<float>((rank + 1) * (i % 4 + 1) + step % 3));
  }
}

template <typename T>
__global__ void optimizer_kernel(T* w, T* m, const T* g, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float momentum = 0.9f * to_float(m[i]) + to_float(g[i]);
    m[i] = from_float<T>(momentum);
    w[i] = from_float<T>(to_float(w[i]) - 1e-9f * momentum);
  }
}

template <typename T>
__global__ void to_float_kernel(const T* data, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = to_float(data[i]);
  }
}

int blocks_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

}  // namespace

void launch_spin(std::int64_t ns, cudaStream_t stream) {
  if (ns > 0) spin_kernel<<<1, 1, 0, stream>>>(ns);
}

void launch_fill_random(void* data, std::int64_t n, DeviceType type, std::uint64_t seed,
                        cudaStream_t stream) {
  switch (type) {
    case DeviceType::kF32:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(data), n,
                                                                 seed);
      break;
    case DeviceType::kF16:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__half*>(data), n,
                                                                 seed);
      break;
    case DeviceType::kBF16:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data),
                                                                 n, seed);
      break;
  }
}

void launch_fill_pattern(void* data, std::int64_t n, DeviceType type, int rank, int step,
                         cudaStream_t stream) {
  switch (type) {
    case DeviceType::kF32:
      fill_pattern_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(data), n,
                                                                  rank, step);
      break;
    case DeviceType::kF16:
      fill_pattern_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__half*>(data), n,
                                                                  rank, step);
      break;
    case DeviceType::kBF16:
      fill_pattern_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data),
                                                                  n, rank, step);
      break;
  }
}

void launch_optimizer(void* weights, void* momentum, const void* grads, std::int64_t n,
                      DeviceType type, cudaStream_t stream) {
  switch (type) {
    case DeviceType::kF32:
      optimizer_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(weights),
                                                               static_cast<float*>(momentum),
                                                               static_cast<const float*>(grads), n);
      break;
    case DeviceType::kF16:
      optimizer_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<__half*>(weights), static_cast<__half*>(momentum),
          static_cast<const __half*>(grads), n);
      break;
    case DeviceType::kBF16:
      optimizer_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<__nv_bfloat16*>(weights), static_cast<__nv_bfloat16*>(momentum),
          static_cast<const __nv_bfloat16*>(grads), n);
      break;
  }
}

void launch_to_float(const void* data, float* out, std::int64_t n, DeviceType type,
                     cudaStream_t stream) {
  switch (type) {
    case DeviceType::kF32:
      to_float_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const float*>(data), out,
                                                              n);
      break;
    case DeviceType::kF16:
      to_float_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const __half*>(data), out,
                                                              n);
      break;
    case DeviceType::kBF16:
      to_float_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(data), out, n);
      break;
  }
}

}  // namespace synthetic::cuda
