// DiskStore (spec/checkpoint-image.md §5, spec/checkpoint-protocol.md §2b):
// which files exist after each commit, and, with Reuse::kSpare, that the
// next image is written over the spare (the same inode) and cut to its own
// length while the newest image stays untouched.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "modules/ckpt/image_disk.hpp"

namespace {

using ftmpi::ckpt::DiskStore;

class DiskStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ftmpi-disk-store-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    DiskStore(dir_, "job").remove_job();
    ::rmdir(dir_.c_str());
  }
  // Writes `text` as image `number` of `rank`; returns the inode it went to.
  ino_t put(DiskStore& s, int rank, uint64_t number, const std::string& text) {
    auto fd = s.begin(rank, number);
    EXPECT_TRUE(fd.ok());
    struct stat st {};
    EXPECT_EQ(::fstat(fd.value(), &st), 0);
    EXPECT_EQ(::write(fd.value(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
    EXPECT_TRUE(s.commit(fd.value(), rank, number).ok());
    return st.st_ino;
  }
  bool exists(const DiskStore& s, int rank, uint64_t number) const {
    return ::access(s.path_of(rank, number).c_str(), F_OK) == 0;
  }
  std::string read(const DiskStore& s, int rank, uint64_t number) const {
    std::ifstream in(s.path_of(rank, number));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string dir_;
};

TEST_F(DiskStoreTest, WithoutReuseOnlyTheNewestImageStays) {
  DiskStore s(dir_, "job");
  put(s, 0, 1, "one");
  put(s, 0, 2, "two");
  put(s, 1, 1, "other rank");
  put(s, 0, 3, "three");
  EXPECT_FALSE(exists(s, 0, 1));
  EXPECT_FALSE(exists(s, 0, 2));
  EXPECT_EQ(read(s, 0, 3), "three");
  EXPECT_EQ(read(s, 1, 1), "other rank");
  EXPECT_EQ(s.latest(0), 3u);
}

TEST_F(DiskStoreTest, SpareIsWrittenOverInPlaceAndCut) {
  DiskStore s(dir_, "job", DiskStore::Reuse::kSpare);
  const ino_t first = put(s, 0, 1, "a long first image");
  const ino_t second = put(s, 0, 2, "second image");
  EXPECT_NE(first, second);  // no spare yet: image 1 is the newest
  EXPECT_EQ(read(s, 0, 1), "a long first image");  // kept as the spare
  const ino_t third = put(s, 0, 3, "third");
  EXPECT_EQ(third, first);  // written over image 1
  EXPECT_FALSE(exists(s, 0, 1));
  EXPECT_EQ(read(s, 0, 2), "second image");  // the newest stayed whole until now
  EXPECT_EQ(read(s, 0, 3), "third");  // cut to its own length
  const ino_t fourth = put(s, 0, 4, "fourth, longer than the spare was");
  EXPECT_EQ(fourth, second);
  EXPECT_EQ(read(s, 0, 4), "fourth, longer than the spare was");
  EXPECT_EQ(read(s, 0, 3), "third");
  EXPECT_FALSE(exists(s, 0, 2));
  EXPECT_EQ(s.latest(0), 4u);
}

TEST_F(DiskStoreTest, SpareOfOneRankIsNotTakenByAnother) {
  DiskStore s(dir_, "job", DiskStore::Reuse::kSpare);
  const ino_t r0a = put(s, 0, 1, "r0 one");
  put(s, 0, 2, "r0 two");
  const ino_t r1 = put(s, 1, 5, "r1 five");
  EXPECT_NE(r1, r0a);
  EXPECT_EQ(read(s, 0, 1), "r0 one");
  EXPECT_EQ(read(s, 0, 2), "r0 two");
}

TEST_F(DiskStoreTest, AbandonedWriteOverTheSpareLosesOnlyTheSpare) {
  DiskStore s(dir_, "job", DiskStore::Reuse::kSpare);
  put(s, 0, 1, "one");
  put(s, 0, 2, "two");
  auto fd = s.begin(0, 3);
  ASSERT_TRUE(fd.ok());
  ASSERT_EQ(::write(fd.value(), "x", 1), 1);
  s.abandon(fd.value(), 0, 3);
  EXPECT_FALSE(exists(s, 0, 1));
  EXPECT_FALSE(exists(s, 0, 3));
  EXPECT_EQ(read(s, 0, 2), "two");
  EXPECT_EQ(s.latest(0), 2u);
  put(s, 0, 3, "three");  // no spare left: a new file
  EXPECT_EQ(read(s, 0, 2), "two");
  EXPECT_EQ(read(s, 0, 3), "three");
}

}  // namespace
