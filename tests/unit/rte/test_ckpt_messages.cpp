// Checkpoint messages (protocol versions 7, 8 and 10) and the launcher's checkpoint
// lines (spec/checkpoint-protocol.md §3, §6).
#include <gtest/gtest.h>

#include "rte/launcher/ckpt_report.hpp"
#include "rte/proto/ckpt_messages.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/gc_messages.hpp"

namespace ftmpi::rte::proto {
namespace {

template <typename M>
void round_trip(const M& m) {
  Frame f;
  ASSERT_TRUE(split_frame(make_frame(m), f));
  EXPECT_EQ(f.type, static_cast<uint16_t>(M::kType));
  M back;
  ASSERT_TRUE(parse(f, back)) << msg_name(f.type);
  EXPECT_TRUE(back == m) << msg_name(f.type);
  for (size_t n = 0; n < f.payload.size(); ++n) {
    Frame cut{f.type, std::vector<uint8_t>(f.payload.begin(), f.payload.begin() + static_cast<ptrdiff_t>(n))};
    M x;
    EXPECT_FALSE(parse(cut, x)) << msg_name(f.type) << " accepted " << n << " bytes";
  }
  Frame longer = f;
  longer.payload.push_back(0);
  M y;
  EXPECT_FALSE(parse(longer, y)) << msg_name(f.type) << " accepted a trailing byte";
}

CkptFacts sample_facts() {
  CkptFacts f;
  f.number = 7;
  f.ok = 1;
  f.image_pid = 4242;
  f.pause_ns = 4'100'000;
  f.resident = 52u << 20;
  f.dets_acked = 3;
  f.log_bytes = 1 << 20;
  f.received = {0, 12, 40, 9};
  return f;
}

TEST(CkptMessages, RoundTrips) {
  round_trip(CkptOrder{3, 7});
  round_trip(CkptOrder{3, 7, 1});
  round_trip(CkptRequest{7, ""});
  round_trip(CkptRequest{7, "10.0.0.2:4711"});
  CkptFacts st = sample_facts();
  st.store = CkptFacts::kStoreBuddy;
  st.stored_bytes = 53u << 20;
  st.store_ns = 95'000'000;
  st.stored_at = "node2";
  round_trip(CkptNote{ProcId{2, 1}, st, 5});
  round_trip(CkptStored{3, 7, CkptFacts::kStoreDisk, 1, 53u << 20, 95'000'000, "/d/j.r3.c7.img", ""});
  round_trip(CkptStored{3, 7, CkptFacts::kStoreBuddy, 0, 0, 1, "10.0.0.2:4711", "refused"});
  round_trip(CkptDone{sample_facts()});
  CkptFacts no = sample_facts();
  no.ok = 0;
  no.image_pid = 0;
  no.why = "in MPI_Finalize";
  round_trip(CkptDone{no});
  round_trip(CkptNote{ProcId{2, 1}, sample_facts(), 123456789});
  LogFigures g{1000, 10, 5, 7, {0, 100, 900}};
  round_trip(LogStats{g});
  round_trip(LogNote{ProcId{1, 0}, g});
  round_trip(CkptAck{7});
  round_trip(CkptWoken{ProcId{2, 3}, ProcId{2, 1}, 7, 4242, 3'500'000, 1234, 987654321});
  round_trip(CkptWoken{ProcId{2, 3}, ProcId{2, 0}, 7, 4242, 3'500'000, 0, 987654321, CkptFacts::kStoreDisk});
  round_trip(CkptTaken{ProcId{2, 1}, 7});
  EXPECT_STREQ(msg_name(static_cast<uint16_t>(MsgType::kCkptTaken)), "CKPT_TAKEN");
  EXPECT_STREQ(msg_name(static_cast<uint16_t>(MsgType::kCkptOrder)), "CKPT_ORDER");
  EXPECT_STREQ(msg_name(static_cast<uint16_t>(MsgType::kCkptAck)), "CKPT_ACK");
  EXPECT_STREQ(msg_name(static_cast<uint16_t>(MsgType::kCkptWoken)), "CKPT_WOKEN");
  EXPECT_STREQ(msg_name(static_cast<uint16_t>(MsgType::kCkptDone)), "CKPT_DONE");
}

TEST(CkptMessages, GarbageCollectionRoundTrips) {
  round_trip(CkptKeptUp{ProcId{3, 2}, 9, 41});
  round_trip(CkptKeptDown{ProcId{3, 2}, 9, 0});
  round_trip(CkptKept{9});
  round_trip(RestartRefusedUp{ProcId{1, 4}, "rank 1 cannot be restarted"});
  Frame f;
  CkptKept k;
  ASSERT_TRUE(split_frame(make_frame(CkptKept{0}), f));
  EXPECT_FALSE(parse(f, k)) << "checkpoint numbers count from 1";
  CkptKeptDown d;
  ASSERT_TRUE(split_frame(make_frame(CkptKeptDown{ProcId{-1, 0}, 1, 1}), f));
  EXPECT_FALSE(parse(f, d));
  RestartRefusedUp r;
  ASSERT_TRUE(split_frame(make_frame(RestartRefusedUp{ProcId{1, 1}, ""}), f));
  EXPECT_FALSE(parse(f, r)) << "the job ends with a reason";
  EXPECT_STREQ(msg_name(static_cast<uint16_t>(MsgType::kCkptKeptDown)), "CKPT_KEPT_DOWN");
  // A frame of one type never parses as the other.
  ASSERT_TRUE(split_frame(make_frame(CkptKeptUp{ProcId{3, 2}, 9, 41}), f));
  EXPECT_FALSE(parse(f, d));
}

TEST(CkptMessages, RejectsWhatCannotBe) {
  Frame f;
  CkptOrder o;
  ASSERT_TRUE(split_frame(make_frame(CkptOrder{-1, 1}), f));
  EXPECT_FALSE(parse(f, o));  // no slot -1
  ASSERT_TRUE(split_frame(make_frame(CkptOrder{1, 0}), f));
  EXPECT_FALSE(parse(f, o));  // numbers count from 1
  ASSERT_TRUE(split_frame(make_frame(CkptOrder{1, 1, 2}), f));
  EXPECT_FALSE(parse(f, o));  // collect is 0 or 1
  CkptRequest r;
  ASSERT_TRUE(split_frame(make_frame(CkptRequest{0, ""}), f));
  EXPECT_FALSE(parse(f, r));
  CkptFacts bad = sample_facts();
  bad.image_pid = 0;  // an image without a process
  CkptDone d;
  ASSERT_TRUE(split_frame(make_frame(CkptDone{bad}), f));
  EXPECT_FALSE(parse(f, d));
  // The memory store is the one taken checkpoint without a process ...
  bad.store = CkptFacts::kStoreMemory;
  ASSERT_TRUE(split_frame(make_frame(CkptDone{bad}), f));
  EXPECT_TRUE(parse(f, d));
  EXPECT_EQ(d.facts, bad);
  // ... and it names none.
  bad.image_pid = 4242;
  ASSERT_TRUE(split_frame(make_frame(CkptDone{bad}), f));
  EXPECT_FALSE(parse(f, d));
  bad = sample_facts();
  bad.store = 4;
  ASSERT_TRUE(split_frame(make_frame(CkptDone{bad}), f));
  EXPECT_FALSE(parse(f, d));
  CkptAck a;
  ASSERT_TRUE(split_frame(make_frame(CkptAck{0}), f));
  EXPECT_FALSE(parse(f, a));
  CkptWoken w;
  ASSERT_TRUE(split_frame(make_frame(CkptWoken{ProcId{2, 3}, ProcId{1, 1}, 7, 4242, 0, 0, 0}), f));
  EXPECT_FALSE(parse(f, w));  // the image of another slot
  ASSERT_TRUE(split_frame(make_frame(CkptWoken{ProcId{2, 3}, ProcId{2, 1}, 0, 4242, 0, 0, 0}), f));
  EXPECT_FALSE(parse(f, w));  // no checkpoint 0
  ASSERT_TRUE(split_frame(make_frame(CkptWoken{ProcId{2, 3}, ProcId{2, 1}, 7, 4242, 0, 0, 0, 4}), f));
  EXPECT_FALSE(parse(f, w));  // no store 4
  CkptTaken t;
  ASSERT_TRUE(split_frame(make_frame(CkptTaken{ProcId{2, 1}, 0}), f));
  EXPECT_FALSE(parse(f, t));
  bad = sample_facts();
  bad.ok = 2;
  ASSERT_TRUE(split_frame(make_frame(CkptDone{bad}), f));
  EXPECT_FALSE(parse(f, d));
}

TEST(CkptReport, LinesAndSummary) {
  CkptFacts f = sample_facts();  // 52 MiB, 4.1 ms: 4.1 / (52/1024) = 80.7 ms/GiB
  EXPECT_EQ(ckpt_line(ProcId{1, 0}, f),
            "ftmpirun: checkpoint 7 of rank 1: 52.0 MiB resident, pause 4.1 ms (81 ms/GiB), local image pid 4242");
  CkptFacts no;
  no.number = 8;
  no.why = "in MPI_Finalize";
  EXPECT_EQ(ckpt_line(ProcId{1, 0}, no), "ftmpirun: checkpoint 8 of rank 1 not taken: in MPI_Finalize");
  CkptTally t(3);
  t.on_checkpoint(f);
  CkptFacts g = f;
  g.pause_ns = 6'100'000;
  t.on_checkpoint(g);  // mean 5.1 ms, max 6.1 ms, 10.2 ms per 104 MiB: 100 ms/GiB
  t.on_checkpoint(no);
  t.on_log(2, LogFigures{3u << 20, 1u << 20, 0, 0, {}});
  t.on_log(0, LogFigures{1u << 20, 2u << 20, 0, 0, {}});
  t.on_log(2, LogFigures{2u << 20, 1u << 20, 0, 0, {}});  // falls: the peak stays
  EXPECT_EQ(t.taken(), 2);
  EXPECT_EQ(t.failed(), 1);
  EXPECT_EQ(t.log_peak(), 3u << 20);
  EXPECT_EQ(t.log_now(2), 2u << 20);
  EXPECT_EQ(t.summary_line(),
            "ftmpirun: checkpoints: 2 taken, 1 not; pause 5.1 ms mean, 6.1 ms max (100 ms/GiB); "
            "sender logs peaked at 3.0 MiB (rank 2), 3.0 MiB reclaimed");
  CkptTally none(2);
  // Stored images: the store, size, time and rate on the line; totals in the summary.
  CkptFacts s = f;
  s.store = CkptFacts::kStoreBuddy;
  s.stored_bytes = 64u << 20;
  s.store_ns = 500'000'000;
  s.stored_at = "node2";
  EXPECT_EQ(ckpt_line(ProcId{1, 0}, s),
            "ftmpirun: checkpoint 7 of rank 1: 52.0 MiB resident, pause 4.1 ms (81 ms/GiB), local image pid 4242, "
            "buddy node2: 64.0 MiB in 500.0 ms (128 MiB/s)");
  CkptFacts bad = s;
  bad.store = CkptFacts::kStoreDisk;
  bad.store_error = "No space left on device";
  EXPECT_EQ(ckpt_line(ProcId{1, 0}, bad),
            "ftmpirun: checkpoint 7 of rank 1: 52.0 MiB resident, pause 4.1 ms (81 ms/GiB), local image pid 4242, "
            "disk: not stored: No space left on device");
  // The memory store: no frozen copy to name.
  CkptFacts mem = s;
  mem.store = CkptFacts::kStoreMemory;
  mem.image_pid = 0;
  mem.stored_at = "/dev/shm/ftmpi-ckpt/j.r1.c7.img";
  EXPECT_EQ(ckpt_line(ProcId{1, 0}, mem),
            "ftmpirun: checkpoint 7 of rank 1: 52.0 MiB resident, pause 4.1 ms (81 ms/GiB), "
            "memory: 64.0 MiB in 500.0 ms (128 MiB/s)");
  CkptTally st(2);
  st.on_checkpoint(s);
  st.on_checkpoint(s);
  st.on_checkpoint(bad);
  EXPECT_EQ(st.summary_line(),
            "ftmpirun: checkpoints: 3 taken, 0 not; pause 4.1 ms mean, 4.1 ms max (81 ms/GiB); 2 stored (128.0 MiB in "
            "1000.0 ms (128 MiB/s)), 1 not; sender logs peaked at 0.0 MiB, 0.0 MiB reclaimed");
  EXPECT_EQ(none.summary_line(), "ftmpirun: checkpoints: 0 taken, 0 not; sender logs peaked at 0.0 MiB, 0.0 MiB reclaimed");
}

}  // namespace
}  // namespace ftmpi::rte::proto
