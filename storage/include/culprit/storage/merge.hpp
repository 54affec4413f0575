#pragma once
// Merging shard stores: experiments are matched by name (and must have the same manifest
// hash), configurations by config_hash, runs by (configuration, repetition); an imported run,
// whose repetition is only the order its store received it in, by the same capture (run meta
// steps_digest; without it, the same import), else it becomes its configuration's next
// repetition. Only finished runs are copied, with their attached evidence; of two conflicting
// copies the `ok` one is kept. Merging the same input twice changes nothing.

#include <string>
#include <vector>

#include "culprit/storage/db.hpp"

namespace culprit::storage {

struct MergeStats {
  int experiments_added = 0;
  int configurations_added = 0;
  int runs_added = 0;     // not in the output before
  int runs_replaced = 0;  // the output's copy was unfinished or failed, the input's ok
  int runs_kept = 0;      // finished in the input, the output's copy kept
};

// Checks every input before anything is written (OUT is not even created): each exists, is a
// culprit store, is not OUT, no experiment has different manifests in two of them or in OUT,
// and no configuration (experiment, config_hash) is two job setups there (storage::JobSetup).
// Throws culprit::UsageError naming the file.
void check_merge_inputs(const std::string& output_path, const std::vector<std::string>& inputs);

// Merges the store at `input_path` into `output` in one transaction.
// Throws culprit::UsageError when the input is missing, not a store of this schema version,
// the output itself, or holds an experiment whose manifest differs from the output's or a
// configuration whose job setup differs from the output's (nothing of the input is merged).
MergeStats merge_store(Db& output, const std::string& input_path);

}  // namespace culprit::storage
