#include "culprit/storage/store.hpp"

namespace culprit::storage {

std::string store_folder(const std::string& db_path, StoreFolder folder) {
  switch (folder) {
    case StoreFolder::kRuns:
      return db_path + ".runs";
    case StoreFolder::kBuilds:
      return db_path + ".builds";
    case StoreFolder::kSlurm:
      break;
  }
  return db_path + ".slurm";
}

}  // namespace culprit::storage
