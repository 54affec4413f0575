#include "runfile/meta_keys.hpp"

#include <algorithm>

namespace runfile {
namespace assets {
std::string_view meta_keys_tsv();
}  // namespace assets

namespace meta {

std::string_view keys_table() {
  return assets::meta_keys_tsv();
}

bool is_culprit_key(std::string_view key) {
  return std::find(kAll.begin(), kAll.end(), key) != kAll.end();
}

}  // namespace meta
}  // namespace runfile
