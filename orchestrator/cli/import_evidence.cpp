#include "import_evidence.hpp"

#include <filesystem>

#include "culprit/analysis/attach.hpp"
#include "culprit/errors.hpp"
#include "culprit/report/attach_report.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::cli {

bool is_evidence_format(const std::string& format) {
  return format == "ncu" || format == "dcgm" || format == "nvidia-smi" || format == "nvml-csv";
}

void add_evidence_options(CLI::App& command, EvidenceArgs& args) {
  command.add_option("--attach", args.attach,
                     "With --format ncu|dcgm|nvidia-smi|nvml-csv: the stored run (and rank, "
                     "default the blamed one) the evidence is about, RUN[:RANK]");
  command.add_option("--phase", args.phase,
                     "With --format ncu: the run's phase the kernels belong to (default: matched "
                     "by kernel name)");
  command.add_option("--gpu-rank", args.gpu_rank,
                     "Telemetry: GPU=RANK,... (GPU index to rank; default: the run's provenance)");
  command.add_option("--host", args.host,
                     "Telemetry without host names: the host the file was taken on (default: "
                     "the run's only host)");
  command.add_option("--start", args.start,
                     "Telemetry without timestamps: time of the first sample (ISO-8601)");
  command.add_option("--period-ms", args.period_ms,
                     "Telemetry without timestamps: milliseconds between samples");
}

void import_evidence(const CommonOptions& common, const std::vector<std::string>& paths,
                     const std::string& format, const EvidenceArgs& args) {
  if (!is_evidence_format(format)) {
    throw UsageError(
        "--attach takes evidence about a run: --format ncu, dcgm, nvidia-smi or "
        "nvml-csv (traces are imported as runs, without --attach)");
  }
  if (args.attach.empty()) {
    throw UsageError("--format " + format +
                     " is evidence about a stored run: name it with --attach RUN[:RANK]");
  }
  const analysis::AttachTarget target = analysis::parse_attach_target(args.attach);
  const std::string db = store_path(common);
  if (!std::filesystem::exists(db)) {
    throw UsageError("database " + db + " does not exist: attach to a stored run (--db PATH)");
  }
  auto store = storage::open_store(db);
  const analysis::AttachSummary s =
      format == "ncu" ? analysis::attach_ncu(*store, paths, target, args.phase)
                      : analysis::attach_telemetry(
                            *store, paths, target,
                            {format, args.gpu_rank, args.host, args.start, args.period_ms});
  print(report::attach_document(s, common.format()));
}

}  // namespace culprit::cli
