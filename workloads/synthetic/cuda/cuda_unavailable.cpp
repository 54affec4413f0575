// Linked instead of cuda_backend.cpp when the CUDA toolkit or NCCL was not found at configure
// time: selecting backend cuda then fails loudly instead of running something else.

#include <stdexcept>

#include "../backend.hpp"

namespace synthetic {

std::unique_ptr<Backend> make_cuda_backend(const stepmodel::RunConfig&, const RankInjections&, int,
                                           int) {
  throw std::runtime_error(
      "backend cuda: not compiled in (this culprit-step was built without the CUDA toolkit and "
      "NCCL); rebuild with them installed and -DCULPRIT_WITH_CUDA=ON, or use backend cpu");
}

}  // namespace synthetic
