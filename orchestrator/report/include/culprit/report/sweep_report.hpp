#pragma once
// `culprit submit` output: what was submitted, the progress line of --wait, and the sweep's
// status as text or a JSON document (docs/cli.md, "submit").

#include <string>

#include "culprit/report/document.hpp"
#include "culprit/slurm/sweep.hpp"

namespace culprit::report {

// "tasks: P pending, R running, D done, F failed | runs k/N done (m ok) | merge STATE"; the
// part that changes only when the sweep moves on (plain-line progress prints it when it does).
std::string sweep_progress_state(const slurm::SweepStatus& status);
// The state plus " | elapsed 15s ETA 15s" (ETA from the time per finished run so far).
std::string sweep_progress_line(const slurm::SweepStatus& status, double elapsed_s);

// {db, dir, planned, ok, finished, merged_ok, over, tasks[...], merge{...}}.
std::string sweep_status_json(const slurm::SweepStatus& status,
                              const slurm::Submission& submission);
// One line per shard (state, reason, runs ok, the log of a task that did not complete), the
// merge job, and a summary saying what to do next.
std::string sweep_status_text(const slurm::SweepStatus& status,
                              const slurm::Submission& submission);

// What `culprit submit` prints: the submission ({db, dir, shards, ranks, array_job, merge_job}
// as JSON), or the sweep's status (--status, --wait).
std::string submission_document(const slurm::Submission& submission, Format format);
std::string sweep_status_document(const slurm::SweepStatus& status,
                                  const slurm::Submission& submission, Format format);

}  // namespace culprit::report
