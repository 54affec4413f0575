#pragma once
// The run meta keys (the run file's `meta`, the store's run_meta): their one owner. Writers and
// readers name a key only through these constants; meta_keys.tsv beside run_file.sql is the same
// list with each key's meaning, which the Python module reads and unit.runfile checks against
// kAll. A new key is added to both (the test fails on either alone).

#include <array>
#include <string_view>

namespace runfile::meta {

inline constexpr const char* kFormatVersion = "format_version";
inline constexpr const char* kSource = "source";
inline constexpr const char* kBackend = "backend";
inline constexpr const char* kRanks = "ranks";
inline constexpr const char* kWorldSize = "world_size";
inline constexpr const char* kWarmupSteps = "warmup_steps";
inline constexpr const char* kRunFileWarmupSteps = "run_file_warmup_steps";
inline constexpr const char* kSteps = "steps";
inline constexpr const char* kModelFlopsPerStep = "model_flops_per_step";
inline constexpr const char* kParameterBytes = "parameter_bytes";
inline constexpr const char* kStartedAt = "started_at";
inline constexpr const char* kFinishedAt = "finished_at";
inline constexpr const char* kUnixOffsetNs = "unix_offset_ns";
inline constexpr const char* kTraceFormat = "trace_format";
inline constexpr const char* kPartial = "partial";
inline constexpr const char* kIncompleteCollectives = "incomplete_collectives";
inline constexpr const char* kDeviceMicrobatchBase = "device_microbatch_base";
inline constexpr const char* kGemmKernels = "gemm_kernels";
inline constexpr const char* kGemmKernelNs = "gemm_kernel_ns";
inline constexpr const char* kGemmKernelsWithoutShapes = "gemm_kernels_without_shapes";
inline constexpr const char* kGemmShapedNs = "gemm_shaped_ns";
inline constexpr const char* kGemmFlops = "gemm_flops";
inline constexpr const char* kPhaseRanges = "phase_ranges";
inline constexpr const char* kStepsDigest = "steps_digest";

// Every key, in meta_keys.tsv's order. (const char*: a key converts where a writer or reader
// wants std::string, and the C API takes it as it is.)
inline constexpr std::array<std::string_view, 24> kAll = {kFormatVersion,
                                                          kSource,
                                                          kBackend,
                                                          kRanks,
                                                          kWorldSize,
                                                          kWarmupSteps,
                                                          kRunFileWarmupSteps,
                                                          kSteps,
                                                          kModelFlopsPerStep,
                                                          kParameterBytes,
                                                          kStartedAt,
                                                          kFinishedAt,
                                                          kUnixOffsetNs,
                                                          kTraceFormat,
                                                          kPartial,
                                                          kIncompleteCollectives,
                                                          kDeviceMicrobatchBase,
                                                          kGemmKernels,
                                                          kGemmKernelNs,
                                                          kGemmKernelsWithoutShapes,
                                                          kGemmShapedNs,
                                                          kGemmFlops,
                                                          kPhaseRanges,
                                                          kStepsDigest};

// meta_keys.tsv as embedded at build time (comment lines start with '#').
std::string_view keys_table();

// Whether `key` is one of kAll (an application's own fact is not).
bool is_culprit_key(std::string_view key);

}  // namespace runfile::meta
