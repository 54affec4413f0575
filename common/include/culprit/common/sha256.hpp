#pragma once
// SHA-256 (FIPS 180-4) for content digests: manifest hashes, configuration hashes, run seeds.
// Small and dependency-free so the planner's hashes are the same on every build.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace culprit {

std::array<std::uint8_t, 32> sha256(std::string_view data);
std::string sha256_hex(std::string_view data);  // 64 lowercase hex digits

}  // namespace culprit
