// The kernel table (culprit/common/kernels.hpp) on kernel names copied unchanged from the real
// traces in shared/traces (file named beside each), plus a few names of libraries those traces
// do not hold (labelled "not in shared/traces": rocBLAS, FlashAttention, custom all-reduce).
#include <doctest/doctest.h>

#include <string_view>

#include "culprit/common/kernels.hpp"

using culprit::bus_factor;
using culprit::classify_kernel;
using culprit::collective_op_from_name;
using culprit::CollectiveOp;
using culprit::kernel_base_name;
using culprit::KernelClass;

namespace {

KernelClass kind(std::string_view name) {
  return classify_kernel(name).kind;
}

}  // namespace

TEST_CASE("the base name of a demangled kernel is its own identifier") {
  CHECK(kernel_base_name("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, "
                         "16>(c10::BFloat16*, unsigned long, unsigned long)") ==
        "multimem_all_reduce_kernel");
  CHECK(kernel_base_name("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT") ==
        "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT");
  CHECK(kernel_base_name("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
        "ncclDevKernel_AllGather_RING_LL");
  // hta/trace_filter: a return type with template arguments and parentheses inside them
  CHECK(kernel_base_name("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, "
                         "float>(cublasGemvParams<float>)") == "kernel");
  CHECK(kernel_base_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x5_tn_"
                         "align4>(cutlass_80_tensorop_s1688gemm_128x128_32x5_tn_align4::Params)") ==
        "Kernel");
}

TEST_CASE("GEMM kernels as cuBLAS, cuBLASLt, CUTLASS and TensorRT-LLM name them") {
  // nsys-multi/h100_2gpu_1s.sqlite (cuBLAS)
  CHECK(kind("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_"
             "aligna4_alignc4_execute_kernel__5x_cublas") == KernelClass::kGemm);
  CHECK(classify_kernel("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4"
                        "x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas")
            .library == std::string_view("cuBLAS"));
  // gpu-kineto/b200_eager_trace.json.gz (cuBLASLt, TensorRT-LLM batched GEMM)
  CHECK(kind("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT") == KernelClass::kGemm);
  CHECK(kind("nvjet_tst_192x8_64x8_4x1_v_bz_TNT") == KernelClass::kGemm);
  CHECK(kind("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_"
             "rM_TN_transOut_schedS_biasM_bN_ldgsts_tmaOpt_clmp_swiGlu_dynBatch_sm100f") ==
        KernelClass::kGemm);
  // hta/trace_filter (cuBLAS SIMT, CUTLASS)
  CHECK(kind("ampere_sgemm_32x128_tn") == KernelClass::kGemm);
  CHECK(kind("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x5_tn_align4>(cutlass_"
             "80_tensorop_s1688gemm_128x128_32x5_tn_align4::Params)") == KernelClass::kGemm);
  CHECK(kind("void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensor"
             "StridedBatched<float const> >(cublasGemmk1Params<float>)") == KernelClass::kGemm);
  // not in shared/traces: rocBLAS / hipBLASLt (Tensile)
  CHECK(kind("Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1") ==
        KernelClass::kGemm);
}

TEST_CASE("names holding gemm or cutlass only in a namespace or template are not GEMMs") {
  // hta/trace_filter: fbgemm_gpu is a library name, the kernel permutes lengths
  CHECK(kind("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, "
             "int*)") == KernelClass::kOther);
  // hta/trace_filter: a GEMV is no GEMM
  CHECK(kind("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, "
             "float, float, float, false, true, true, false, 7, cublasGemvParams<float> >("
             "cublasGemvParams<float>)") == KernelClass::kOther);
  // b200: a MoE finalize whose template arguments name cutlass types
  CHECK(kind("void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<"
             "cutlass::bfloat16_t, cutlass::bfloat16_t, float, false> >(moe::dev::finalize::"
             "KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, float, false>)") ==
        KernelClass::kOther);
  CHECK(kind("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, "
             "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::"
             "Array<char*, 1>)") == KernelClass::kOther);
  CHECK(kind("vectorized_elementwise_kernel") == KernelClass::kOther);  // nsys-multi short name
}

TEST_CASE("attention kernels") {
  // b200 (TensorRT-LLM fused MHA on sm100)
  CHECK(kind("fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128Persistent"
             "Context") == KernelClass::kAttention);
  // not in shared/traces: FlashAttention 2 and 3
  CHECK(kind("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
             "cutlass::half_t> >(Flash_fwd_params)") == KernelClass::kAttention);
  CHECK(kind("void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
             "int> > >(flash::Params)") == KernelClass::kAttention);
}

TEST_CASE("collective kernels with their operation") {
  auto op = [](std::string_view name) { return classify_kernel(name).op; };
  // b200
  CHECK(kind("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
        KernelClass::kCollective);
  CHECK(op("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
        CollectiveOp::kAllGather);
  CHECK(op("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::"
           "BFloat16*, unsigned long, unsigned long, unsigned long, unsigned long, unsigned "
           "long, unsigned long)") == CollectiveOp::kAllReduce);
  // hta/trace_filter, hta/nccl_parser_config
  CHECK(op("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)") ==
        CollectiveOp::kSendRecv);
  CHECK(op("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)") ==
        CollectiveOp::kAllReduce);
  CHECK(op("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)") ==
        CollectiveOp::kBroadcast);
  // not in shared/traces: RCCL's generic kernel, custom one-shot/two-shot all-reduce
  CHECK(op("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)") ==
        CollectiveOp::kOtherCollective);
  CHECK(op("void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 8>(float**)") ==
        CollectiveOp::kAllReduce);
  CHECK(op("void tensorrt_llm::kernels::twoShotAllReduceKernel<half, 8>(AllReduceParams)") ==
        CollectiveOp::kAllReduce);
  CHECK(op("void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*)") ==
        CollectiveOp::kAllReduce);
}

TEST_CASE("copies and memsets; unknown names are other") {
  CHECK(kind("Memcpy HtoD (Pageable -> Device)") == KernelClass::kMemcpy);  // hta/trace_filter
  CHECK(kind("Memset (Device)") == KernelClass::kMemset);
  CHECK(kind("triton_poi_fused_add_bitwise_and_bitwise_not_bitwise_or_ge_lt_mul_sub_0") ==
        KernelClass::kOther);  // b200
  CHECK(kind("") == KernelClass::kOther);
}

TEST_CASE("collective operations from call and range names") {
  CHECK(collective_op_from_name("c10d::allreduce_") == CollectiveOp::kAllReduce);
  CHECK(collective_op_from_name("c10d::_allgather_base_") == CollectiveOp::kAllGather);
  CHECK(collective_op_from_name("nccl:_all_gather_base") == CollectiveOp::kAllGather);
  CHECK(collective_op_from_name("c10d::_reduce_scatter_base_") == CollectiveOp::kReduceScatter);
  CHECK(collective_op_from_name("MPI_Reduce_scatter") == CollectiveOp::kReduceScatter);
  CHECK(collective_op_from_name("c10d::alltoall_base_") == CollectiveOp::kAllToAll);
  CHECK(collective_op_from_name("nccl:all_to_all") == CollectiveOp::kAllToAll);
  CHECK(collective_op_from_name("MPI_Bcast") == CollectiveOp::kBroadcast);
  CHECK(collective_op_from_name("c10d::recv_") == CollectiveOp::kSendRecv);
  CHECK(collective_op_from_name("gloo:all_reduce") == CollectiveOp::kAllReduce);
  CHECK(collective_op_from_name("symm_mem::multimem_all_reduce_") == CollectiveOp::kAllReduce);
  CHECK(collective_op_from_name("MPI_Barrier") == CollectiveOp::kBarrier);
  CHECK(collective_op_from_name("aten::mm") == CollectiveOp::kNone);
}

TEST_CASE("nccl-tests bus factors") {
  CHECK(bus_factor(CollectiveOp::kAllReduce, 8) == doctest::Approx(2.0 * 7 / 8));
  CHECK(bus_factor(CollectiveOp::kAllGather, 8) == doctest::Approx(7.0 / 8));
  CHECK(bus_factor(CollectiveOp::kReduceScatter, 4) == doctest::Approx(3.0 / 4));
  CHECK(bus_factor(CollectiveOp::kAllToAll, 2) == doctest::Approx(0.5));
  CHECK(bus_factor(CollectiveOp::kSendRecv, 2) == 1.0);
  CHECK(bus_factor(CollectiveOp::kAllReduce, 1) == 0.0);  // one rank moves nothing
  CHECK(bus_factor(CollectiveOp::kBarrier, 8) == 0.0);
  CHECK(bus_factor(CollectiveOp::kAllReduce, 0) == 0.0);
}
