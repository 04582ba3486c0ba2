// Image stream framing (spec/checkpoint-image.md §2): streams built by hand,
// fed to the Scanner whole and a byte at a time, and damaged in each section.
#include "base/ckpt_image_format.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace fmt = ftmpi::ckpt_format;

namespace {

void put64(std::vector<uint8_t>& v, uint64_t x) {
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}

// Header, `meta`, one chunk per entry of `pages` (address, filled with a
// byte), one base run per entry of `runs` (address, length), trailer.
std::vector<uint8_t> stream(const std::vector<uint8_t>& meta, const std::vector<std::pair<uint64_t, uint8_t>>& pages,
                            const std::vector<std::pair<uint64_t, uint64_t>>& runs = {}) {
  std::vector<uint8_t> s(fmt::kHeaderBytes);
  fmt::Header h;
  h.meta_bytes = meta.size();
  h.meta_hash = fmt::hash(meta.data(), meta.size(), 0);
  fmt::encode_header(h, s.data());
  uint64_t hh;
  std::memcpy(&hh, s.data() + 40, 8);
  uint64_t chain = fmt::chain(fmt::chain(0, hh), h.meta_hash);
  s.insert(s.end(), meta.begin(), meta.end());
  for (auto [addr, fill] : pages) {
    std::vector<uint8_t> data(4096, fill);
    put64(s, addr);
    put64(s, data.size());
    s.insert(s.end(), data.begin(), data.end());
    uint64_t dh = fmt::hash(data.data(), data.size(), addr ^ data.size());
    put64(s, dh);
    chain = fmt::chain(chain, dh);
  }
  for (auto [addr, len] : runs) {
    const size_t at = s.size();
    put64(s, addr);
    put64(s, len | fmt::kBaseRun);
    uint64_t rh = fmt::hash(s.data() + at, 16, addr ^ (len | fmt::kBaseRun));
    put64(s, rh);
    chain = fmt::chain(chain, rh);
  }
  fmt::Trailer t;
  t.total_bytes = s.size() + fmt::kTrailerBytes;
  t.chunks = pages.size() + runs.size();
  t.chain = chain;
  std::vector<uint8_t> tr(fmt::kTrailerBytes);
  fmt::encode_trailer(t, tr.data());
  s.insert(s.end(), tr.begin(), tr.end());
  return s;
}

const std::vector<uint8_t> kMeta = {'M', 'E', 'T', 'A', 1, 2, 3};
const std::vector<std::pair<uint64_t, uint8_t>> kPages = {{0x555555554000ull, 7}, {0x7ffff7fc0000ull, 9}};

}  // namespace

TEST(CkptImageFormat, HashDependsOnBytesLengthAndSeed) {
  std::vector<uint8_t> a(1000, 1), b = a;
  EXPECT_EQ(fmt::hash(a.data(), a.size(), 5), fmt::hash(b.data(), b.size(), 5));
  b[999] = 2;
  EXPECT_NE(fmt::hash(a.data(), a.size(), 5), fmt::hash(b.data(), b.size(), 5));
  EXPECT_NE(fmt::hash(a.data(), a.size(), 5), fmt::hash(a.data(), a.size(), 6));
  EXPECT_NE(fmt::hash(a.data(), 999, 5), fmt::hash(a.data(), 1000, 5));
}

TEST(CkptImageFormat, WholeStreamCompletesAtOnceAndByteByByte) {
  std::vector<uint8_t> s = stream(kMeta, kPages);
  fmt::Scanner whole;
  EXPECT_EQ(whole.scan(s.data(), s.size()), fmt::Scanner::State::kComplete);
  EXPECT_EQ(whole.total_bytes(), s.size());
  EXPECT_EQ(whole.chunks(), 2u);
  EXPECT_EQ(whole.header().meta_bytes, kMeta.size());
  fmt::Scanner step;
  for (size_t have = 1; have < s.size(); ++have) ASSERT_EQ(step.scan(s.data(), have), fmt::Scanner::State::kMore) << have;
  EXPECT_EQ(step.scan(s.data(), s.size()), fmt::Scanner::State::kComplete);
}

TEST(CkptImageFormat, EveryDamagedSectionIsRefused) {
  std::vector<uint8_t> good = stream(kMeta, kPages);
  struct Case {
    size_t at;
    const char* words;
  } cases[] = {
      {0, "bad magic"},
      {20, "header is corrupt"},
      {fmt::kHeaderBytes + 2, "metadata is corrupt"},
      {fmt::kHeaderBytes + kMeta.size(), "chunk header is corrupt"},  // chunk address, unaligned
      {fmt::kHeaderBytes + kMeta.size() + 16 + 100, "is corrupt (hash mismatch)"},  // chunk data
      {good.size() - 4, "trailer hash mismatch"},
      {good.size() - 12, "different chunk count"},
      {good.size() - 20, "different length"},
      {good.size() - 28, "chunk header is corrupt"},  // trailer magic: read as a chunk
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bad = good;
    bad[c.at] ^= 0x01;
    fmt::Scanner s;
    EXPECT_EQ(s.scan(bad.data(), bad.size()), fmt::Scanner::State::kInvalid) << c.at;
    EXPECT_NE(s.error().find(c.words), std::string::npos) << c.at << ": " << s.error();
  }
}

TEST(CkptImageFormat, ChunkMovedToAnotherAddressIsRefused) {
  // Same bytes, same hash input, other address: the seed makes it differ.
  std::vector<uint8_t> s = stream(kMeta, kPages);
  size_t addr_at = fmt::kHeaderBytes + kMeta.size();
  s[addr_at + 1] ^= 0x10;  // 4096-aligned still
  fmt::Scanner sc;
  EXPECT_EQ(sc.scan(s.data(), s.size()), fmt::Scanner::State::kInvalid);
}

TEST(CkptImageFormat, TornStreamNeverCompletes) {
  std::vector<uint8_t> s = stream(kMeta, kPages);
  fmt::Scanner sc;
  EXPECT_EQ(sc.scan(s.data(), s.size() - 1), fmt::Scanner::State::kMore);
  // A stream cut after a chunk and given another stream's trailer: the length and chain disagree.
  std::vector<uint8_t> one = stream(kMeta, {kPages[0]});
  std::vector<uint8_t> spliced(s.begin(), s.begin() + static_cast<long>(one.size() - fmt::kTrailerBytes));
  spliced.insert(spliced.end(), s.end() - fmt::kTrailerBytes, s.end());
  fmt::Scanner sp;
  EXPECT_EQ(sp.scan(spliced.data(), spliced.size()), fmt::Scanner::State::kInvalid);
}

TEST(CkptImageFormat, BaseRunsCarryNoDataAndAreChained) {
  // An incremental image: 1 GiB left to the base costs 24 bytes of stream.
  const std::vector<std::pair<uint64_t, uint64_t>> runs = {{0x7ffe00000000ull, 1ull << 30}, {0x7fff00000000ull, 4096}};
  std::vector<uint8_t> s = stream(kMeta, kPages, runs);
  EXPECT_EQ(s.size(), stream(kMeta, kPages).size() + 2 * (fmt::kChunkHeadBytes + fmt::kChunkTailBytes));
  fmt::Scanner sc;
  ASSERT_EQ(sc.scan(s.data(), s.size()), fmt::Scanner::State::kComplete) << sc.error();
  EXPECT_EQ(sc.chunks(), 4u);
  uint64_t trailer_chain;
  std::memcpy(&trailer_chain, s.data() + s.size() - 8, 8);
  EXPECT_EQ(sc.final_chain(), trailer_chain);
  // Another length is refused; with the flag dropped the run reads as a
  // chunk of 1 GiB whose bytes never come.
  const size_t len_at = s.size() - fmt::kTrailerBytes - 2 * 24 + 8;
  std::vector<uint8_t> longer = s;
  longer[len_at + 1] ^= 0x10;
  fmt::Scanner b;
  EXPECT_EQ(b.scan(longer.data(), longer.size()), fmt::Scanner::State::kInvalid);
  EXPECT_NE(b.error().find("hash mismatch"), std::string::npos) << b.error();
  std::vector<uint8_t> unflagged = s;
  unflagged[len_at + 7] ^= 0x80;
  fmt::Scanner u;
  EXPECT_NE(u.scan(unflagged.data(), unflagged.size()), fmt::Scanner::State::kComplete);
}
