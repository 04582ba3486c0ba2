// Image file names (base/ckpt_image_files.hpp): whole, temporary and
// incremental images of a job are listed; other names are not.
#include "base/ckpt_image_files.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace files = ftmpi::ckpt_files;

TEST(CkptImageFiles, NamesOfWholeAndIncrementalImages) {
  EXPECT_EQ(files::image_path("/d", "job", 3, 12), "/d/job.r3.c12.img");
  EXPECT_EQ(files::image_path("/d", "job", 3, 12, 10), "/d/job.r3.c12.d10.img");
}

TEST(CkptImageFiles, ListsTheJobsImagesOnly) {
  char tmpl[] = "/tmp/ckpt-files-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  for (const char* n : {"job.r0.c1.img", "job.r0.c3.d1.img", "job.r0.c4.d3.img.tmp",
                        "job.r1.c2.img.tmp", "job.r0.c3.d3.img", "job.r0.c3.d0.img",
                        "job.r0.c3.dx.img", "other.r0.c1.img", "job.r0.c1.img.bak"})
    std::ofstream(dir + "/" + n) << "x";
  int whole = 0, deltas = 0, temporary = 0;
  for (const files::ImageFile& f : files::job_images(dir, "job")) {
    whole += f.whole && f.base == 0;
    deltas += f.whole && f.base != 0;
    temporary += !f.whole;
    if (f.base) {
      EXPECT_LT(f.base, f.number) << f.path;
    }
  }
  EXPECT_EQ(whole, 1);
  EXPECT_EQ(deltas,
            1);  // c3.d1; a base not below its image's number, 0 or not a number: not an image
  EXPECT_EQ(temporary, 2);  // c4.d3.tmp, r1.c2.tmp
  const files::ImageFile newest = files::newest_image(dir, "job", 0);
  EXPECT_EQ(newest.number, 3u);
  EXPECT_EQ(newest.base, 1u);
  std::filesystem::remove_all(dir);
}
