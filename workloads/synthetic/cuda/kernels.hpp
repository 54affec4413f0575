#pragma once
// Device kernels of the CUDA backend, callable from host C++ (implemented in kernels.cu).

#include <cuda_runtime.h>

#include <cstdint>

namespace synthetic::cuda {

enum class DeviceType : int { kF32 = 0, kF16 = 1, kBF16 = 2 };

// Busy-waits on the device for `ns` nanoseconds (global timer): an injected "gpu" delay, or
// the predicted duration of a phase with compute = "sleep".
void launch_spin(std::int64_t ns, cudaStream_t stream);
// Deterministic pseudo-random values in [-0.5, 0.5).
void launch_fill_random(void* data, std::int64_t n, DeviceType type, std::uint64_t seed,
                        cudaStream_t stream);
// The gradient check pattern of backend.hpp: (rank + 1) * (i % 4 + 1) + step % 3.
void launch_fill_pattern(void* data, std::int64_t n, DeviceType type, int rank, int step,
                         cudaStream_t stream);
// momentum = 0.9 momentum + grad; weight -= rate * momentum (memory bound, all parameters).
void launch_optimizer(void* weights, void* momentum, const void* grads, std::int64_t n,
                      DeviceType type, cudaStream_t stream);
void launch_to_float(const void* data, float* out, std::int64_t n, DeviceType type,
                     cudaStream_t stream);

}  // namespace synthetic::cuda
