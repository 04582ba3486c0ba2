// get_elements / get_count, signature hashes and matching, overlap checks.
#include "dtype_test_util.hpp"

namespace ftmpi::dtype {
namespace {

using namespace testing;

TEST(GetElements, Builtins) {
  EXPECT_EQ(get_elements(B(Builtin::kInt), 0), 0);
  EXPECT_EQ(get_elements(B(Builtin::kInt), 12), 3);
  EXPECT_EQ(get_elements(B(Builtin::kInt), 13), kUndefined);
  EXPECT_EQ(get_elements(B(Builtin::kDouble), 4), kUndefined);
  // Pairs count value and index separately.
  EXPECT_EQ(get_elements(B(Builtin::kDoubleInt), 24), 4);
  EXPECT_EQ(get_elements(B(Builtin::kDoubleInt), 32), 5);  // 2 pairs + a double
  EXPECT_EQ(get_elements(B(Builtin::kDoubleInt), 28), kUndefined);
  EXPECT_EQ(get_elements(B(Builtin::kShortInt), 8), 3);  // short, int, short
  EXPECT_EQ(get_elements(B(Builtin::k2Int), 4), 1);
  EXPECT_EQ(get_count(B(Builtin::kDoubleInt), 24), 2);
  EXPECT_EQ(get_count(B(Builtin::kDoubleInt), 20), kUndefined);
  EXPECT_EQ(get_elements(B(Builtin::kInt), -4), kUndefined);
}

TEST(GetElements, DerivedTypes) {
  // {3 chars, double, 2 shorts}: 17 bytes, 6 elements.
  TypeRef s = structure({3, 1, 2}, {0, 8, 16},
                        {&B(Builtin::kChar), &B(Builtin::kDouble), &B(Builtin::kShort)});
  ASSERT_EQ(s->size(), 15);
  ASSERT_EQ(s->elements(), 6);
  const int64_t expected[] = {0, 1, 2, 3, -1, -1, -1, -1, -1, -1, -1, 4, -1, 5, -1, 6};
  for (int64_t bytes = 0; bytes <= 15; ++bytes)
    EXPECT_EQ(get_elements(*s, bytes), expected[bytes]) << bytes;
  EXPECT_EQ(get_elements(*s, 15 + 11), 6 + 4);
  EXPECT_EQ(get_count(*s, 30), 2);
  EXPECT_EQ(get_count(*s, 29), kUndefined);

  TypeRef v = vector(3, 2, 5, *s);  // nested: counts multiply
  EXPECT_EQ(v->elements(), 36);
  EXPECT_EQ(get_elements(*v, v->size() + 15 + 3), 36 + 6 + 3);
  EXPECT_EQ(get_elements(*v, 2 * v->size()), 72);
  TypeRef markers = structure({1, 2, 1}, {-4, 0, 40},
                              {&B(Builtin::kLb), &B(Builtin::kFloat), &B(Builtin::kUb)});
  EXPECT_EQ(get_elements(*markers, 12), 3);
  EXPECT_EQ(get_elements(*markers, 6), kUndefined);
  // Zero-size types hold no elements and no items.
  TypeRef empty = contiguous(0, B(Builtin::kInt));
  EXPECT_EQ(get_elements(*empty, 0), 0);
  EXPECT_EQ(get_elements(*empty, 4), kUndefined);
  EXPECT_EQ(get_count(*empty, 0), 0);
}

TEST(Signature, EqualSequencesHashEqualHoweverBuilt) {
  TypeRef a = contiguous(12, B(Builtin::kInt));
  TypeRef b = vector(3, 4, 9, B(Builtin::kInt));
  TypeRef c = indexed({5, 7}, {100, 0}, B(Builtin::kInt));
  TypeRef d = contiguous(3, *contiguous(2, *contiguous(2, B(Builtin::kInt))));
  EXPECT_EQ(a->signature_hash(), b->signature_hash());
  EXPECT_EQ(a->signature_hash(), c->signature_hash());
  EXPECT_EQ(a->signature_hash(), d->signature_hash());
  EXPECT_EQ(signature(*a, 2), signature(B(Builtin::kInt), 24));
  // Pairs are their two members.
  TypeRef fi = structure({1, 1}, {0, 4}, {&B(Builtin::kFloat), &B(Builtin::kInt)});
  EXPECT_EQ(fi->signature_hash(), B(Builtin::kFloatInt).signature_hash());
  TypeRef two_int = contiguous(2, B(Builtin::kInt));
  EXPECT_EQ(two_int->signature_hash(), B(Builtin::k2Int).signature_hash());
  // Order matters; types differ.
  TypeRef fi_rev = structure({1, 1}, {0, 4}, {&B(Builtin::kInt), &B(Builtin::kFloat)});
  EXPECT_NE(fi_rev->signature_hash(), fi->signature_hash());
  EXPECT_NE(signature(B(Builtin::kInt), 3).hash, signature(B(Builtin::kUnsigned), 3).hash);
  EXPECT_NE(signature(B(Builtin::kInt), 3).hash, signature(B(Builtin::kInt), 4).hash);
}

TEST(Signature, RandomTypesAgreeWithTheirTypeMaps) {
  // The hash of a type equals the hash of the flat sequence of its type map,
  // and every prefix hash equals the hash of that many leading entries.
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE(seed);
    TypeGen g(seed);
    TypeRef t = g.make(3);
    std::vector<Builtin> seq;
    for (const TypeMapEntry& e : type_map(*t))
      if (!is_marker(e.type)) seq.push_back(e.type);
    ASSERT_EQ(static_cast<int64_t>(seq.size()), t->elements());
    std::vector<const Type*> flat;
    for (Builtin b : seq) flat.push_back(&B(b));
    const int64_t count = 2;
    for (int64_t k = 0; k <= count * t->elements(); k += 1 + g.pick(3)) {
      std::vector<const Type*> head;
      for (int64_t i = 0; i < k; ++i) head.push_back(flat[static_cast<size_t>(i) % flat.size()]);
      std::vector<int64_t> disp(head.size());
      int64_t at = 0;
      for (size_t i = 0; i < head.size(); ++i) {
        disp[i] = at;
        at += head[i]->extent();
      }
      TypeRef s = structure(std::vector<int>(head.size(), 1), disp, head);
      const Signature p = signature_prefix(*t, count, k);
      EXPECT_EQ(p.hash, s->signature_hash()) << k;
      EXPECT_EQ(p.elements, k);
      EXPECT_EQ(p.bytes, s->size());
      EXPECT_TRUE(signature_matches(signature(*s, 1), *t, count));
    }
  }
}

TEST(Signature, Matching) {
  TypeRef recv = contiguous(10, B(Builtin::kDouble));
  EXPECT_TRUE(signature_matches(signature(B(Builtin::kDouble), 10), *recv, 1));
  EXPECT_TRUE(signature_matches(signature(B(Builtin::kDouble), 4), *recv, 1));  // short message
  EXPECT_FALSE(signature_matches(signature(B(Builtin::kDouble), 11), *recv, 1));  // truncation
  EXPECT_FALSE(signature_matches(signature(B(Builtin::kLong), 4), *recv, 1));
  EXPECT_TRUE(signature_matches(signature(B(Builtin::kInt), 0), *recv, 1));
  // MPI_PACKED / MPI_BYTE compare by bytes only.
  EXPECT_TRUE(signature_matches(signature(B(Builtin::kPacked), 80), *recv, 1));
  EXPECT_FALSE(signature_matches(signature(B(Builtin::kPacked), 81), *recv, 1));
  EXPECT_TRUE(signature_matches(signature(B(Builtin::kDouble), 3), B(Builtin::kByte), 24));
  EXPECT_FALSE(same_signature(B(Builtin::kByte), 16, *recv, 1));
  EXPECT_TRUE(same_signature(B(Builtin::kByte), 80, *recv, 1));
  TypeRef raw = vector(2, 3, 5, B(Builtin::kPacked));
  EXPECT_TRUE(raw->raw_bytes());
  EXPECT_FALSE(structure({1, 1}, {0, 1}, {&B(Builtin::kByte), &B(Builtin::kChar)})->raw_bytes());
}

// same_signature's shortcut (one type, or one item signature on both sides)
// must agree with the general comparison of whole signatures.
TEST(Signature, SameSignatureShortcutAgreesWithHashes) {
  const Type& d = B(Builtin::kDouble);
  TypeRef pair = contiguous(2, d), other_pair = contiguous(2, d), vec = vector(2, 1, 3, d);
  EXPECT_TRUE(same_signature(d, 5, d, 5));
  EXPECT_FALSE(same_signature(d, 5, d, 6));
  EXPECT_TRUE(same_signature(*pair, 3, *other_pair, 3));  // equal item signatures, different objects
  EXPECT_FALSE(same_signature(*pair, 3, *other_pair, 2));
  EXPECT_TRUE(same_signature(*pair, 3, *vec, 3));  // same signature, other layout
  EXPECT_TRUE(same_signature(*pair, 2, d, 4));     // different item signatures: the hashes decide
  EXPECT_FALSE(same_signature(*pair, 2, d, 5));
  EXPECT_FALSE(same_signature(d, 4, B(Builtin::kLong), 4));
  EXPECT_TRUE(same_signature(B(Builtin::kByte), 8, B(Builtin::kByte), 8));
  EXPECT_FALSE(same_signature(B(Builtin::kByte), 8, B(Builtin::kByte), 9));
  for (uint64_t k : {0ull, 1ull, 2ull, 7ull, 1000ull, 1ull << 40})  // repeat() from the top bit
    EXPECT_EQ(signature(*pair, static_cast<int64_t>(k)).hash, signature(d, static_cast<int64_t>(2 * k)).hash);
}

TEST(Overlap, DetectsDoubleWrites) {
  EXPECT_FALSE(has_overlap(B(Builtin::kInt), 100));
  EXPECT_FALSE(has_overlap(*vector(4, 2, 3, B(Builtin::kInt)), 5));
  EXPECT_TRUE(has_overlap(*vector(4, 2, 1, B(Builtin::kInt)), 1));   // blocks overlap
  EXPECT_TRUE(has_overlap(*hvector(2, 1, 0, B(Builtin::kInt)), 1));   // same place twice
  EXPECT_FALSE(has_overlap(*hvector(2, 1, 0, B(Builtin::kInt)), 0));
  EXPECT_TRUE(has_overlap(*hindexed({1, 1}, {0, 4}, B(Builtin::kDouble)), 1));
  EXPECT_FALSE(has_overlap(*hindexed({1, 1}, {8, 0}, B(Builtin::kDouble)), 1));
  // Interleaved items: no proof from the description, the exact check clears it.
  TypeRef comb = structure({1, 1, 1}, {0, 16, 8},
                           {&B(Builtin::kDouble), &B(Builtin::kDouble), &B(Builtin::kUb)});
  EXPECT_EQ(comb->extent(), 8);
  EXPECT_TRUE(has_overlap(*comb, 3));  // item 2's first double is item 0's second
  TypeRef teeth = structure({1, 1, 1}, {0, 16, 8},
                            {&B(Builtin::kInt), &B(Builtin::kInt), &B(Builtin::kUb)});
  EXPECT_FALSE(has_overlap(*teeth, 1));
  EXPECT_FALSE(has_overlap(*teeth, 2));  // ints at 0,16 and 8,24
  EXPECT_TRUE(has_overlap(*teeth, 3));   // item 2 starts at 16
  TypeRef interleave = vector(3, 1, 2, B(Builtin::kShort));
  TypeRef two = hvector(2, 1, 2, *interleave);  // the second copy fills the holes
  EXPECT_FALSE(has_overlap(*two, 1));
  TypeRef zero_extent = structure({1, 1}, {0, 0}, {&B(Builtin::kInt), &B(Builtin::kUb)});
  EXPECT_TRUE(has_overlap(*zero_extent, 2));
  EXPECT_FALSE(has_overlap(*zero_extent, 1));
}

}  // namespace
}  // namespace ftmpi::dtype
