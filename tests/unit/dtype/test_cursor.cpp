// The cursor against a reference pack that walks the explicit type map:
// random types, random piece boundaries (inside elements too), seeking,
// iovecs, differing send and receive types, and the layout's size.
#include "dtype_test_util.hpp"

namespace ftmpi::dtype {
namespace {

using namespace testing;

std::vector<char> pack_in_pieces(Cursor& c, TypeGen& g) {
  std::vector<char> out(c.total() - c.position());
  size_t at = 0;
  while (!c.done()) {
    const size_t piece = static_cast<size_t>(g.pick(static_cast<int64_t>(c.total() / 3 + 2)));
    const size_t got = c.pack(out.data() + at, piece);
    EXPECT_EQ(got, std::min(piece, out.size() - at));
    at += got;
  }
  EXPECT_EQ(at, out.size());
  return out;
}

void unpack_in_pieces(Cursor& c, const std::vector<char>& in, TypeGen& g) {
  size_t at = 0;
  while (!c.done()) {
    const size_t piece = static_cast<size_t>(g.pick(static_cast<int64_t>(c.total() / 3 + 2)));
    at += c.unpack(in.data() + at, std::min(piece, in.size() - at));
  }
  EXPECT_EQ(at, in.size());
}

TEST(Cursor, RandomTypesRoundTripInRandomPieces) {
  int nonempty = 0;
  size_t total_bytes = 0;
  for (uint64_t seed = 1; seed <= 2500; ++seed) {
    SCOPED_TRACE(seed);
    TypeGen g(seed);
    TypeRef t = g.make(3 + static_cast<int>(seed % 2));
    const int64_t count = g.len();
    Buffer src(*t, count, seed);
    const std::vector<char> expected = reference_pack(*t, count, src.base());
    ASSERT_EQ(packed_bytes(*t, count), static_cast<int64_t>(expected.size()));
    nonempty += !expected.empty();
    total_bytes += expected.size();

    Cursor c(static_cast<const void*>(src.base()), static_cast<size_t>(count), *t);
    ASSERT_EQ(c.total(), expected.size());
    EXPECT_EQ(pack_in_pieces(c, g), expected);

    // Unpacking writes exactly what the type map says, in type-map order
    // (which also fixes the outcome for types with overlapping entries).
    Buffer got(*t, count, seed + 1000000), want(*t, count, seed + 1000000);
    reference_unpack(*t, count, want.base(), expected);
    Cursor u(got.base(), static_cast<size_t>(count), *t);
    unpack_in_pieces(u, expected, g);
    EXPECT_EQ(got.bytes(), want.bytes());

    // iovecs describe the same stream.
    Cursor v(src.base(), static_cast<size_t>(count), *t);
    std::vector<char> via_iov;
    while (!v.done()) {
      iovec iov[5];
      const size_t max_entries = 1 + static_cast<size_t>(g.pick(5));
      const size_t max_bytes = 1 + static_cast<size_t>(g.pick(static_cast<int64_t>(v.total())));
      size_t bytes = 0;
      const size_t n = v.iovecs(iov, max_entries, max_bytes, &bytes);
      ASSERT_GT(bytes, 0u);
      ASSERT_LE(n, max_entries);
      ASSERT_LE(bytes, max_bytes);
      size_t sum = 0;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_GT(iov[i].iov_len, 0u);
        const char* p = static_cast<const char*>(iov[i].iov_base);
        via_iov.insert(via_iov.end(), p, p + iov[i].iov_len);
        sum += iov[i].iov_len;
      }
      EXPECT_EQ(sum, bytes);
    }
    EXPECT_EQ(via_iov, expected);

    // Seeking anywhere, then packing the rest.
    const size_t off = static_cast<size_t>(g.pick(static_cast<int64_t>(expected.size()) + 1));
    Cursor s(src.base(), static_cast<size_t>(count), *t);
    s.pack(via_iov.data(), static_cast<size_t>(g.pick(static_cast<int64_t>(expected.size()) + 1)));
    s.seek(off);
    EXPECT_EQ(s.position(), off);
    EXPECT_EQ(pack_in_pieces(s, g),
              std::vector<char>(expected.begin() + static_cast<ptrdiff_t>(off), expected.end()));
  }
  // The generator must not degenerate into empty types.
  EXPECT_GT(nonempty, 1200);
  EXPECT_GT(total_bytes, 2500u * 100);
}

TEST(Cursor, OneByteAtATimeSplitsEveryElement) {
  TypeRef t = vector(5, 1, 3, B(Builtin::kDoubleInt));
  Buffer src(*t, 2, 7);
  const auto expected = reference_pack(*t, 2, src.base());
  ASSERT_EQ(expected.size(), 120u);
  Cursor c(src.base(), 2, *t);
  std::vector<char> got;
  char b;
  while (c.pack(&b, 1) == 1) got.push_back(b);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(c.pack(&b, 1), 0u);
}

TEST(Cursor, SeekToEveryOffset) {
  TypeRef inner = hindexed({2, 1}, {10, -7}, B(Builtin::kShort));
  TypeRef t = vector(3, 2, 3, *inner);
  Buffer src(*t, 2, 11);
  const auto expected = reference_pack(*t, 2, src.base());
  for (size_t off = 0; off <= expected.size(); ++off) {
    Cursor c(src.base(), 2, *t);
    c.seek(off);
    char buf[5] = {};
    const size_t n = c.pack(buf, 5);
    ASSERT_EQ(n, std::min<size_t>(5, expected.size() - off));
    EXPECT_EQ(std::vector<char>(buf, buf + n),
              std::vector<char>(expected.begin() + static_cast<ptrdiff_t>(off),
                                expected.begin() + static_cast<ptrdiff_t>(off + n)));
  }
}

TEST(Cursor, SendAndReceiveTypesMayDifferWithEqualSignatures) {
  std::vector<double> src(64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
  TypeRef send = vector(4, 2, 3, B(Builtin::kDouble));  // items 11 doubles apart
  TypeRef contig = contiguous(16, B(Builtin::kDouble));
  TypeRef split = hindexed({8, 8}, {0, 256}, B(Builtin::kDouble));
  TypeRef backwards = indexed({5, 11}, {20, 0}, B(Builtin::kDouble));
  const std::vector<double> sent = {0, 1, 3, 4, 6, 7, 9, 10, 11, 12, 14, 15, 17, 18, 20, 21};
  for (const TypeRef& recv : {contig, split, backwards}) {
    EXPECT_TRUE(same_signature(*send, 2, *recv, 1));
    std::vector<double> dst(40, -1);
    Cursor out(src.data(), 2, *send), in(dst.data(), 1, *recv);
    TypeGen g(5);
    char piece[24];
    while (!out.done()) {
      const size_t n = out.pack(piece, 1 + static_cast<size_t>(g.pick(24)));
      ASSERT_EQ(in.unpack(piece, n), n);
    }
    EXPECT_TRUE(in.done());
    std::vector<double> received;
    for (const TypeMapEntry& e : type_map(*recv)) received.push_back(dst[static_cast<size_t>(e.disp / 8)]);
    EXPECT_EQ(received, sent);
  }

  // A predefined pair and a user struct with the same layout.
  struct DI {
    double v;
    int i;
  } pairs[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, got[3] = {};
  TypeRef user = structure({1, 1}, {0, 8}, {&B(Builtin::kDouble), &B(Builtin::kInt)});
  EXPECT_EQ(user->extent(), 16);
  EXPECT_TRUE(same_signature(B(Builtin::kDoubleInt), 3, *user, 3));
  char packed[36];
  Cursor a(pairs, 3, B(Builtin::kDoubleInt));
  EXPECT_EQ(a.pack(packed, sizeof packed), 36u);
  Cursor b(got, 3, *user);
  EXPECT_EQ(b.unpack(packed, 36), 36u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(got[k].v, pairs[k].v);
    EXPECT_EQ(got[k].i, pairs[k].i);
  }
  EXPECT_FALSE(same_signature(*contiguous(4, B(Builtin::kInt)), 1, *contiguous(4, B(Builtin::kFloat)), 1));
}

TEST(Cursor, IovecsListBlocksAndRespectLimits) {
  int a[12];
  TypeRef t = vector(3, 2, 4, B(Builtin::kInt));
  Cursor c(a, 1, *t);
  iovec iov[4];
  size_t bytes = 0;
  ASSERT_EQ(c.iovecs(iov, 2, 1000, &bytes), 2u);
  EXPECT_EQ(bytes, 16u);
  EXPECT_EQ(iov[0].iov_base, &a[0]);
  EXPECT_EQ(iov[0].iov_len, 8u);
  EXPECT_EQ(iov[1].iov_base, &a[4]);
  ASSERT_EQ(c.iovecs(iov, 4, 5, &bytes), 1u);  // stops inside the block
  EXPECT_EQ(iov[0].iov_base, &a[8]);
  EXPECT_EQ(iov[0].iov_len, 5u);
  ASSERT_EQ(c.iovecs(iov, 4, 1000, &bytes), 1u);
  EXPECT_EQ(iov[0].iov_base, reinterpret_cast<char*>(&a[8]) + 5);
  EXPECT_EQ(iov[0].iov_len, 3u);
  EXPECT_TRUE(c.done());
  EXPECT_EQ(c.iovecs(iov, 4, 1000, &bytes), 0u);
  EXPECT_EQ(bytes, 0u);

  // Blocks that touch across items are merged while walking.
  TypeRef gap = structure({1, 1, 1}, {0, 8, 12},
                          {&B(Builtin::kInt), &B(Builtin::kInt), &B(Builtin::kUb)});
  char buf[32];
  Cursor m(buf, 2, *gap);
  ASSERT_EQ(m.iovecs(iov, 4, 1000, &bytes), 3u);
  EXPECT_EQ(iov[0].iov_base, buf);
  EXPECT_EQ(iov[0].iov_len, 4u);
  EXPECT_EQ(iov[1].iov_base, buf + 8);
  EXPECT_EQ(iov[1].iov_len, 8u);
  EXPECT_EQ(iov[2].iov_base, buf + 20);
  EXPECT_EQ(iov[2].iov_len, 4u);

  // A contiguous buffer is one block.
  double d[100];
  Cursor whole(d, 10, *contiguous(10, B(Builtin::kDouble)));
  ASSERT_EQ(whole.iovecs(iov, 4, SIZE_MAX, &bytes), 1u);
  EXPECT_EQ(bytes, 800u);
}

TEST(Cursor, LayoutIsProportionalToTheDescription) {
  TypeRef big = vector(1 << 20, 1, 2, B(Builtin::kDouble));
  const Node& n = *big->data_program().root;
  EXPECT_EQ(n.kind, Node::Kind::kBlocks);
  EXPECT_EQ(n.count, 1 << 20);
  EXPECT_EQ(n.stride, 16);
  EXPECT_EQ(n.len, 8);
  // Nested vectors that continue each other's pattern flatten.
  TypeRef rows = vector(100, 1, 1, *vector(4, 1, 2, B(Builtin::kInt)));  // rows 28 bytes apart
  EXPECT_EQ(rows->data_program().root->kind, Node::Kind::kRepeat);
  TypeRef flat = hvector(100, 1, 32, *vector(4, 1, 2, B(Builtin::kInt)));
  EXPECT_EQ(flat->data_program().root->kind, Node::Kind::kBlocks);
  EXPECT_EQ(flat->data_program().root->count, 400);
  // An indexed type with regular blocks becomes one strided node.
  std::vector<int> bl(1000, 2), disp(1000);
  for (int k = 0; k < 1000; ++k) disp[k] = 5 * k;
  TypeRef ix = indexed(bl, disp, B(Builtin::kFloat));
  EXPECT_EQ(ix->data_program().root->kind, Node::Kind::kBlocks);
  EXPECT_EQ(ix->data_program().root->count, 1000);
  // Structs of adjacent members coalesce; a big struct's pieces are shared.
  TypeRef s = structure({2, 3}, {0, 8}, {&B(Builtin::kInt), &B(Builtin::kFloat)});
  EXPECT_TRUE(s->data_program().root->dense());
  EXPECT_EQ(s->data_program().root->len, 20);
}

TEST(Cursor, AbsoluteAddressesFromBottom) {
  int values[3] = {10, 20, 30};
  std::vector<int64_t> addr = {reinterpret_cast<int64_t>(&values[2]),
                               reinterpret_cast<int64_t>(&values[0])};
  TypeRef t = hindexed({1, 1}, addr, B(Builtin::kInt));
  int out[2] = {};
  Cursor c(static_cast<const void*>(nullptr), 1, *t);
  EXPECT_EQ(c.pack(out, 8), 8u);
  EXPECT_EQ(out[0], 30);
  EXPECT_EQ(out[1], 10);
}

TEST(Cursor, MovesMidStream) {
  TypeRef t = hindexed({1, 2}, {12, 0}, B(Builtin::kShort));  // not mergeable over count
  Buffer src(*t, 4, 3);
  const auto expected = reference_pack(*t, 4, src.base());
  Cursor a(src.base(), 4, *t);
  std::vector<char> got(expected.size());
  size_t at = a.pack(got.data(), 7);
  Cursor b(std::move(a));
  at += b.pack(got.data() + at, 9);
  Cursor c;
  c = std::move(b);
  at += c.pack(got.data() + at, 1000);
  EXPECT_EQ(at, expected.size());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(a.total(), 0u);
}

TEST(Cursor, DeepNestingUsesHeapFrames) {
  TypeRef t = builtin_ref(Builtin::kShortInt);
  for (int level = 0; level < 12; ++level)
    t = level % 2 ? hindexed({1, 2}, {40 + level, 0}, *t) : vector(2, 1, 3, *t);
  ASSERT_GT(t->data_program().root->depth, 8);
  Buffer src(*t, 2, 99);
  const auto expected = reference_pack(*t, 2, src.base());
  TypeGen g(4);
  Cursor c(src.base(), 2, *t);
  EXPECT_EQ(pack_in_pieces(c, g), expected);
  Cursor moved(std::move(c));
  moved.seek(expected.size() / 3);
  EXPECT_EQ(pack_in_pieces(moved, g),
            std::vector<char>(expected.begin() + static_cast<ptrdiff_t>(expected.size() / 3),
                              expected.end()));
}

TEST(Cursor, EmptyStreams) {
  int x = 5;
  Cursor zero_count(&x, 0, B(Builtin::kInt));
  EXPECT_TRUE(zero_count.done());
  EXPECT_EQ(zero_count.pack(&x, 4), 0u);
  Cursor markers(&x, 3, *structure({1, 1}, {0, 9}, {&B(Builtin::kLb), &B(Builtin::kUb)}));
  EXPECT_EQ(markers.total(), 0u);
  iovec iov[1];
  EXPECT_EQ(markers.iovecs(iov, 1, 100), 0u);
  EXPECT_EQ(x, 5);
}

}  // namespace
}  // namespace ftmpi::dtype
