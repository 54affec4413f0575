#include "culprit/storage/store.hpp"

#include <filesystem>

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

std::string store_of_run_file(const std::string& run_file) {
  const std::filesystem::path runs = std::filesystem::path(run_file).parent_path().parent_path();
  const std::string suffix = store_folder("", StoreFolder::kRuns);
  const std::string folder = runs.string();
  if (folder.size() <= suffix.size() || !folder.ends_with(suffix)) return "";
  return folder.substr(0, folder.size() - suffix.size());
}

}  // namespace culprit::storage
