#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comm/model/attributes.hpp"

using namespace ftmpi::comm;

namespace {

// What the callbacks saw, as "<op>:<keyval>:<value>" lines.
std::vector<std::string> g_log;
int g_fail_keyval = -1;  // callbacks for this keyval return 99
AttrList* g_list = nullptr;  // for callbacks that change the list they run from

std::string line(const char* op, int keyval, void* v) {
  return std::string(op) + ":" + std::to_string(keyval) + ":" + std::to_string(reinterpret_cast<intptr_t>(v));
}

int del_fn(int comm, int keyval, void* value, void* extra) {
  EXPECT_EQ(comm, 42);
  EXPECT_EQ(extra, reinterpret_cast<void*>(7));
  g_log.push_back(line("del", keyval, value));
  return keyval == g_fail_keyval ? 99 : 0;
}

int copy_twice(int comm, int keyval, void* extra, void* in, void* out, int* flag) {
  g_log.push_back(line("copy", keyval, in));
  if (keyval == g_fail_keyval) return 98;
  *static_cast<void**>(out) = reinterpret_cast<void*>(reinterpret_cast<intptr_t>(in) * 2);
  *flag = 1;
  return 0;
}

int copy_never(int, int keyval, void*, void* in, void*, int* flag) {
  g_log.push_back(line("copy", keyval, in));
  *flag = 0;
  return 0;
}

// A delete callback that sets another attribute on the list being cleared.
int del_and_put(int comm, int keyval, void* value, void* extra) {
  g_log.push_back(line("del", keyval, value));
  if (keyval == 20) g_list->put(comm, 21, {nullptr, del_fn, reinterpret_cast<void*>(7)}, reinterpret_cast<void*>(5));
  return 0;
}

void* v(intptr_t x) { return reinterpret_cast<void*>(x); }
const Keyval kDel{copy_twice, del_fn, reinterpret_cast<void*>(7)};

class Attrs : public ::testing::Test {
 protected:
  void SetUp() override {
    g_log.clear();
    g_fail_keyval = -1;
  }
};

}  // namespace

TEST_F(Attrs, PutGetAndReplaceRunsTheOldValuesDeleteCallback) {
  AttrList a;
  void* out = nullptr;
  EXPECT_FALSE(a.get(16, &out));
  EXPECT_EQ(a.put(42, 16, kDel, v(1)), 0);
  EXPECT_EQ(a.put(42, 17, kDel, v(2)), 0);
  ASSERT_TRUE(a.get(16, &out));
  EXPECT_EQ(out, v(1));
  EXPECT_TRUE(g_log.empty());
  EXPECT_EQ(a.put(42, 16, kDel, v(3)), 0);
  EXPECT_EQ(g_log, (std::vector<std::string>{"del:16:1"}));
  ASSERT_TRUE(a.get(16, &out));
  EXPECT_EQ(out, v(3));
  // A replaced attribute keeps its place in the set order.
  EXPECT_EQ(a.keyvals(), (std::vector<int>{16, 17}));
}

TEST_F(Attrs, FailingDeleteCallbackKeepsTheOldValue) {
  AttrList a;
  a.put(42, 16, kDel, v(1));
  g_fail_keyval = 16;
  EXPECT_EQ(a.put(42, 16, kDel, v(2)), 99);
  void* out = nullptr;
  ASSERT_TRUE(a.get(16, &out));
  EXPECT_EQ(out, v(1));
  EXPECT_EQ(a.erase(42, 16), 99);
  EXPECT_TRUE(a.get(16, &out));
  g_fail_keyval = -1;
  EXPECT_EQ(a.erase(42, 16), 0);
  EXPECT_FALSE(a.get(16, &out));
  EXPECT_EQ(a.erase(42, 16), 0);  // absent: nothing to do
  EXPECT_EQ(g_log.size(), 3u);
}

TEST_F(Attrs, ClearRunsDeleteCallbacksInSetOrder) {
  AttrList a;
  a.put(42, 30, kDel, v(1));
  a.put(42, 18, kDel, v(2));
  a.put(42, 25, kDel, v(3));
  a.put(42, 18, kDel, v(4));  // replaced: runs del:18:2, keeps second place
  a.put(42, 40, {nullptr, nullptr, nullptr}, v(5));  // no callback at all
  g_log.clear();
  EXPECT_EQ(a.clear(42), 0);
  EXPECT_EQ(g_log, (std::vector<std::string>{"del:30:1", "del:18:4", "del:25:3"}));
  EXPECT_TRUE(a.empty());
}

TEST_F(Attrs, ClearRunsEveryCallbackAndReportsTheFirstFailure) {
  AttrList a;
  a.put(42, 16, kDel, v(1));
  a.put(42, 17, kDel, v(2));
  a.put(42, 18, kDel, v(3));
  g_fail_keyval = 17;
  EXPECT_EQ(a.clear(42), 99);
  EXPECT_EQ(g_log, (std::vector<std::string>{"del:16:1", "del:17:2", "del:18:3"}));
  EXPECT_TRUE(a.empty());
}

TEST_F(Attrs, ClearCopesWithCallbacksThatSetAttributes) {
  AttrList a;
  g_list = &a;
  a.put(42, 20, {nullptr, del_and_put, nullptr}, v(1));
  a.put(42, 22, kDel, v(2));
  EXPECT_EQ(a.clear(42), 0);
  // The attribute set during the clear is deleted too, after the older ones.
  EXPECT_EQ(g_log, (std::vector<std::string>{"del:20:1", "del:22:2", "del:21:5"}));
  EXPECT_TRUE(a.empty());
}

TEST_F(Attrs, CopyToRunsCopyCallbacksAndKeepsOnlyFlaggedOnes) {
  AttrList a, b;
  a.put(42, 16, kDel, v(5));
  a.put(42, 17, {copy_never, del_fn, v(7)}, v(6));
  a.put(42, 18, {nullptr, del_fn, v(7)}, v(8));  // no copy callback: not copied
  a.put(42, 19, kDel, v(9));
  EXPECT_EQ(a.copy_to(b, 42), 0);
  EXPECT_EQ(g_log, (std::vector<std::string>{"copy:16:5", "copy:17:6", "copy:19:9"}));
  EXPECT_EQ(b.keyvals(), (std::vector<int>{16, 19}));
  void* out = nullptr;
  ASSERT_TRUE(b.get(19, &out));
  EXPECT_EQ(out, v(18));
  // The copies keep their keyval's callbacks.
  g_log.clear();
  b.clear(42);
  EXPECT_EQ(g_log, (std::vector<std::string>{"del:16:10", "del:19:18"}));
}

TEST_F(Attrs, FailingCopyCallbackStopsTheCopy) {
  AttrList a, b;
  a.put(42, 16, kDel, v(1));
  a.put(42, 17, kDel, v(2));
  a.put(42, 18, kDel, v(3));
  g_fail_keyval = 17;
  EXPECT_EQ(a.copy_to(b, 42), 98);
  EXPECT_EQ(b.keyvals(), (std::vector<int>{16}));
}

TEST(KeyvalRegistry, UserKeyvalsStartAbovePredefinedAndAreNeverReused) {
  KeyvalRegistry r(16);
  EXPECT_TRUE(r.is_reserved(1));
  EXPECT_TRUE(r.is_reserved(13));
  EXPECT_TRUE(r.is_reserved(15));
  EXPECT_FALSE(r.is_reserved(16));
  const int a = r.create(kDel);
  const int b = r.create({nullptr, nullptr, nullptr});
  EXPECT_EQ(a, 16);
  EXPECT_EQ(b, 17);
  ASSERT_NE(r.find(a), nullptr);
  EXPECT_EQ(r.find(a)->del, &del_fn);
  EXPECT_TRUE(r.release(a));
  EXPECT_FALSE(r.release(a));
  EXPECT_EQ(r.find(a), nullptr);
  EXPECT_EQ(r.create(kDel), 18);
  EXPECT_FALSE(r.release(3));
  EXPECT_EQ(r.live(), 2u);
}
