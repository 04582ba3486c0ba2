// Builtin metadata and the constructors' size / bounds / type maps, checked
// against hand-computed values, the MPI-1.2 §3.12 examples, and values
// measured from MPICH 4.0 and Open MPI 4.1 where the standard is silent.
#include "dtype_test_util.hpp"

namespace ftmpi::dtype {
namespace {

using namespace testing;
using E = TypeMapEntry;

struct BuiltinRow {
  Builtin b;
  int size, extent, align;
  Kind kind;
};

TEST(Builtin, TableMatchesAbi) {
  const BuiltinRow rows[] = {
      {Builtin::kChar, 1, 1, 1, Kind::kCharacter},
      {Builtin::kSignedChar, 1, 1, 1, Kind::kCInteger},
      {Builtin::kUnsignedChar, 1, 1, 1, Kind::kCInteger},
      {Builtin::kByte, 1, 1, 1, Kind::kByte},
      {Builtin::kShort, 2, 2, 2, Kind::kCInteger},
      {Builtin::kUnsignedShort, 2, 2, 2, Kind::kCInteger},
      {Builtin::kInt, 4, 4, 4, Kind::kCInteger},
      {Builtin::kUnsigned, 4, 4, 4, Kind::kCInteger},
      {Builtin::kLong, 8, 8, 8, Kind::kCInteger},
      {Builtin::kUnsignedLong, 8, 8, 8, Kind::kCInteger},
      {Builtin::kLongLongInt, 8, 8, 8, Kind::kCInteger},
      {Builtin::kUnsignedLongLong, 8, 8, 8, Kind::kCInteger},
      {Builtin::kFloat, 4, 4, 4, Kind::kFloating},
      {Builtin::kDouble, 8, 8, 8, Kind::kFloating},
      {Builtin::kLongDouble, 16, 16, 16, Kind::kFloating},
      {Builtin::kWchar, 4, 4, 4, Kind::kCharacter},
      {Builtin::kPacked, 1, 1, 1, Kind::kPacked},
      {Builtin::kLb, 0, 0, 1, Kind::kMarker},
      {Builtin::kUb, 0, 0, 1, Kind::kMarker},
      {Builtin::kFloatInt, 8, 8, 4, Kind::kPair},
      {Builtin::kDoubleInt, 12, 16, 8, Kind::kPair},
      {Builtin::kLongInt, 12, 16, 8, Kind::kPair},
      {Builtin::k2Int, 8, 8, 4, Kind::kPair},
      {Builtin::kShortInt, 6, 8, 4, Kind::kPair},
      {Builtin::kLongDoubleInt, 20, 32, 16, Kind::kPair},
      {Builtin::kInteger, 4, 4, 4, Kind::kFortranInteger},
      {Builtin::kReal, 4, 4, 4, Kind::kFloating},
      {Builtin::kDoublePrecision, 8, 8, 8, Kind::kFloating},
      {Builtin::kComplex, 8, 8, 4, Kind::kComplex},
      {Builtin::kDoubleComplex, 16, 16, 8, Kind::kComplex},
      {Builtin::kLogical, 4, 4, 4, Kind::kLogical},
      {Builtin::kCharacter, 1, 1, 1, Kind::kCharacter},
      {Builtin::k2Integer, 8, 8, 4, Kind::kPair},
      {Builtin::k2Real, 8, 8, 4, Kind::kPair},
      {Builtin::k2DoublePrecision, 16, 16, 8, Kind::kPair},
      {Builtin::kAint, 8, 8, 8, Kind::kMultiLanguage},
      {Builtin::kOffset, 8, 8, 8, Kind::kMultiLanguage},
      {Builtin::kCount, 8, 8, 8, Kind::kMultiLanguage},
  };
  ASSERT_EQ(std::size(rows), static_cast<size_t>(kNumBuiltins));
  for (int i = 0; i < kNumBuiltins; ++i) {
    const BuiltinRow& r = rows[i];
    SCOPED_TRACE(info(r.b).name);
    EXPECT_EQ(static_cast<int>(r.b), i + 1);
    EXPECT_EQ(info(r.b).size, r.size);
    EXPECT_EQ(info(r.b).extent, r.extent);
    EXPECT_EQ(info(r.b).align, r.align);
    EXPECT_EQ(info(r.b).kind, r.kind);
    const Type& t = builtin_type(r.b);
    EXPECT_TRUE(t.is_builtin());
    EXPECT_TRUE(t.committed());
    EXPECT_EQ(t.size(), r.size);
    EXPECT_EQ(t.extent(), r.extent);
    EXPECT_EQ(t.lb(), 0);
    EXPECT_EQ(t.elements(), r.kind == Kind::kMarker ? 0 : r.kind == Kind::kPair ? 2 : 1);
  }
  EXPECT_STREQ(info(Builtin::kLongDoubleInt).name, "MPI_LONG_DOUBLE_INT");
}

TEST(Builtin, PairsHaveHolesWhereCStructsDo) {
  const Type& si = B(Builtin::kShortInt);
  EXPECT_EQ(si.true_lb(), 0);
  EXPECT_EQ(si.true_ub(), 8);  // short at 0..2, int at 4..8
  EXPECT_FALSE(si.contiguous());
  EXPECT_EQ(type_map(si), (std::vector<E>{{Builtin::kShort, 0}, {Builtin::kInt, 4}}));
  const Type& di = B(Builtin::kDoubleInt);
  EXPECT_EQ(di.true_ub(), 12);
  EXPECT_FALSE(di.contiguous());  // size 12, extent 16
  EXPECT_TRUE(B(Builtin::k2Int).contiguous());
  EXPECT_EQ(info(Builtin::kLongDoubleInt).index_offset, 16);
  EXPECT_EQ(type_map(B(Builtin::k2Real)), (std::vector<E>{{Builtin::kReal, 0}, {Builtin::kReal, 4}}));
}

TEST(Builtin, Markers) {
  const Type& lb = B(Builtin::kLb);
  EXPECT_TRUE(lb.has_lb_marker());
  EXPECT_FALSE(lb.has_ub_marker());
  EXPECT_EQ(lb.size(), 0);
  EXPECT_EQ(lb.extent(), 0);
  EXPECT_TRUE(B(Builtin::kUb).has_ub_marker());
  EXPECT_FALSE(lb.has_unit());
}

// oldtype of the §3.12 examples: {(double,0),(char,8)}, extent 16.
TypeRef double_char() {
  return structure({1, 1}, {0, 8}, {&B(Builtin::kDouble), &B(Builtin::kChar)});
}

TEST(StandardExamples, Contiguous) {
  TypeRef old = double_char();
  EXPECT_EQ(old->extent(), 16);
  EXPECT_EQ(old->size(), 9);
  TypeRef t = contiguous(3, *old);
  EXPECT_EQ(type_map(*t), (std::vector<E>{{Builtin::kDouble, 0}, {Builtin::kChar, 8},
                                          {Builtin::kDouble, 16}, {Builtin::kChar, 24},
                                          {Builtin::kDouble, 32}, {Builtin::kChar, 40}}));
  EXPECT_EQ(t->size(), 27);
  EXPECT_EQ(t->extent(), 48);
  EXPECT_EQ(t->true_extent(), 41);
}

TEST(StandardExamples, Vector) {
  TypeRef old = double_char();
  TypeRef t = vector(2, 3, 4, *old);
  EXPECT_EQ(type_map(*t),
            (std::vector<E>{{Builtin::kDouble, 0},  {Builtin::kChar, 8},   {Builtin::kDouble, 16},
                            {Builtin::kChar, 24},   {Builtin::kDouble, 32}, {Builtin::kChar, 40},
                            {Builtin::kDouble, 64}, {Builtin::kChar, 72},  {Builtin::kDouble, 80},
                            {Builtin::kChar, 88},   {Builtin::kDouble, 96}, {Builtin::kChar, 104}}));
  EXPECT_EQ(t->lb(), 0);
  EXPECT_EQ(t->extent(), 112);
  EXPECT_EQ(t->size(), 54);
}

TEST(StandardExamples, VectorNegativeStride) {
  TypeRef old = double_char();
  TypeRef t = vector(3, 1, -2, *old);
  EXPECT_EQ(type_map(*t), (std::vector<E>{{Builtin::kDouble, 0}, {Builtin::kChar, 8},
                                          {Builtin::kDouble, -32}, {Builtin::kChar, -24},
                                          {Builtin::kDouble, -64}, {Builtin::kChar, -56}}));
  EXPECT_EQ(t->lb(), -64);
  EXPECT_EQ(t->ub(), 16);
  EXPECT_EQ(t->extent(), 80);
  EXPECT_EQ(t->true_lb(), -64);
  EXPECT_EQ(t->true_extent(), 73);
}

TEST(StandardExamples, Indexed) {
  TypeRef old = double_char();
  TypeRef t = indexed({3, 1}, {4, 0}, *old);
  EXPECT_EQ(type_map(*t),
            (std::vector<E>{{Builtin::kDouble, 64}, {Builtin::kChar, 72}, {Builtin::kDouble, 80},
                            {Builtin::kChar, 88}, {Builtin::kDouble, 96}, {Builtin::kChar, 104},
                            {Builtin::kDouble, 0}, {Builtin::kChar, 8}}));
  EXPECT_EQ(t->lb(), 0);
  EXPECT_EQ(t->extent(), 112);
  EXPECT_EQ(t->size(), 36);
}

TEST(StandardExamples, Struct) {
  TypeRef type1 = double_char();
  TypeRef t = structure({2, 1, 3}, {0, 16, 26},
                        {&B(Builtin::kFloat), type1.get(), &B(Builtin::kChar)});
  EXPECT_EQ(type_map(*t), (std::vector<E>{{Builtin::kFloat, 0}, {Builtin::kFloat, 4},
                                          {Builtin::kDouble, 16}, {Builtin::kChar, 24},
                                          {Builtin::kChar, 26}, {Builtin::kChar, 27},
                                          {Builtin::kChar, 28}}));
  EXPECT_EQ(t->size(), 20);
  EXPECT_EQ(t->true_extent(), 29);
  EXPECT_EQ(t->extent(), 32);  // padded to the double's alignment
  EXPECT_EQ(t->alignment(), 8);
}

TEST(StandardExamples, LbUbMarkers) {
  TypeRef t = structure({1, 1, 1}, {-3, 0, 6},
                        {&B(Builtin::kLb), &B(Builtin::kInt), &B(Builtin::kUb)});
  EXPECT_EQ(type_map(*t),
            (std::vector<E>{{Builtin::kLb, -3}, {Builtin::kInt, 0}, {Builtin::kUb, 6}}));
  EXPECT_EQ(t->lb(), -3);
  EXPECT_EQ(t->ub(), 6);
  EXPECT_EQ(t->extent(), 9);
  EXPECT_EQ(t->size(), 4);
  EXPECT_TRUE(t->has_lb_marker());
  EXPECT_TRUE(t->has_ub_marker());

  TypeRef c = contiguous(2, *t);
  EXPECT_EQ(type_map(*c), (std::vector<E>{{Builtin::kLb, -3}, {Builtin::kInt, 0},
                                          {Builtin::kUb, 6}, {Builtin::kLb, 6},
                                          {Builtin::kInt, 9}, {Builtin::kUb, 15}}));
  EXPECT_EQ(c->lb(), -3);
  EXPECT_EQ(c->extent(), 18);
  EXPECT_EQ(c->true_lb(), 0);
  EXPECT_EQ(c->true_extent(), 13);

  // Same values as MPICH 4.0 reports for these.
  TypeRef v = vector(2, 2, 3, *t);
  EXPECT_EQ(v->lb(), -3);
  EXPECT_EQ(v->extent(), 45);
  EXPECT_EQ(v->size(), 16);
  EXPECT_EQ(v->true_lb(), 0);
  EXPECT_EQ(v->true_extent(), 40);
  TypeRef ix = indexed({2, 1}, {5, -1}, *t);
  EXPECT_EQ(ix->lb(), -12);
  EXPECT_EQ(ix->extent(), 72);
  EXPECT_EQ(ix->size(), 12);
  EXPECT_EQ(ix->true_lb(), -9);
  EXPECT_EQ(ix->true_extent(), 67);
}

TEST(Markers, StickyBoundsWinOverData) {
  // A UB buried in a child keeps its place; a later, smaller UB does not
  // lower it (MPICH test typeub.c).
  TypeRef t1 = vector(2, 1, 4, B(Builtin::kInt));
  EXPECT_EQ(t1->extent(), 20);
  TypeRef t2 = structure({1, 1}, {0, 16}, {t1.get(), &B(Builtin::kUb)});
  EXPECT_EQ(t2->extent(), 16);
  TypeRef t3 = structure({1, 1}, {0, 4}, {t2.get(), &B(Builtin::kUb)});
  EXPECT_EQ(t3->extent(), 16);
  // A marker only moves its own bound: the plain lb stays with the data.
  TypeRef neg_ub = structure({1, 1}, {0, -8}, {&B(Builtin::kInt), &B(Builtin::kUb)});
  EXPECT_EQ(neg_ub->lb(), 0);
  EXPECT_EQ(neg_ub->extent(), -8);
  TypeRef only = structure({1, 1}, {-2, 5}, {&B(Builtin::kLb), &B(Builtin::kUb)});
  EXPECT_EQ(only->size(), 0);
  EXPECT_EQ(only->lb(), -2);
  EXPECT_EQ(only->extent(), 7);
}

TEST(Markers, HindexedShiftsBounds) {
  // MPICH test typelb.c: lb 4, ub 5.
  TypeRef a = hindexed({1}, {3}, B(Builtin::kByte));
  TypeRef b = hindexed({1}, {1}, *a);
  EXPECT_EQ(b->lb(), 4);
  EXPECT_EQ(b->ub(), 5);
  EXPECT_EQ(b->extent(), 1);
}

TEST(StructPadding, LikeCStructs) {
  auto ext = [](std::vector<int64_t> d, std::vector<Builtin> ts) {
    std::vector<const Type*> p;
    for (Builtin b : ts) p.push_back(&B(b));
    return structure(std::vector<int>(d.size(), 1), d, p)->extent();
  };
  EXPECT_EQ(ext({0, 8}, {Builtin::kDouble, Builtin::kChar}), 16);
  EXPECT_EQ(ext({0, 1}, {Builtin::kChar, Builtin::kDouble}), 16);
  EXPECT_EQ(ext({0, 4}, {Builtin::kInt, Builtin::kChar}), 8);
  EXPECT_EQ(ext({0, 1}, {Builtin::kChar, Builtin::kChar}), 2);
  EXPECT_EQ(ext({0, 2}, {Builtin::kShort, Builtin::kChar}), 4);
  EXPECT_EQ(ext({0}, {Builtin::kDoubleInt}), 16);
  EXPECT_EQ(ext({0, 16}, {Builtin::kLongDouble, Builtin::kChar}), 32);
  // An explicit UB marker fixes the extent: no padding.
  EXPECT_EQ(ext({0, 12}, {Builtin::kDouble, Builtin::kUb}), 12);
  // With only an LB marker the extent from that lb is rounded (the
  // standard's epsilon; MPICH pads {LB@0,double@0,char@16} to 24 as well).
  EXPECT_EQ(ext({0, 0, 16}, {Builtin::kLb, Builtin::kDouble, Builtin::kChar}), 24);
  EXPECT_EQ(ext({-3, 0}, {Builtin::kLb, Builtin::kInt}), 8);
  EXPECT_EQ(ext({4, 0}, {Builtin::kDouble, Builtin::kLb}), 16);
}

TEST(StructPadding, OnlyStructsPad) {
  TypeRef dc = double_char();
  // MPICH: hvector(2, 1, 3 bytes) of a 16-byte-extent struct spans 19 bytes.
  TypeRef h = hvector(2, 1, 3, *dc);
  EXPECT_EQ(h->extent(), 19);
  EXPECT_EQ(h->size(), 18);
  EXPECT_EQ(h->true_extent(), 12);
  TypeRef c = contiguous(3, B(Builtin::kShortInt));
  EXPECT_EQ(c->extent(), 24);
  EXPECT_EQ(c->true_ub(), 24);
}

TEST(Constructors, HandComputed) {
  TypeRef v = vector(4, 2, 5, B(Builtin::kInt));
  EXPECT_EQ(v->size(), 32);
  EXPECT_EQ(v->lb(), 0);
  EXPECT_EQ(v->extent(), (3 * 5 + 2) * 4);
  EXPECT_EQ(v->elements(), 8);
  EXPECT_FALSE(v->contiguous());

  TypeRef hv = hvector(3, 2, -24, B(Builtin::kDouble));
  EXPECT_EQ(hv->lb(), -48);
  EXPECT_EQ(hv->ub(), 16);
  EXPECT_EQ(hv->size(), 48);

  TypeRef hi = hindexed({1, 1}, {-8, 8}, B(Builtin::kDouble));
  EXPECT_EQ(hi->lb(), -8);
  EXPECT_EQ(hi->ub(), 16);
  EXPECT_EQ(hi->extent(), 24);
  EXPECT_EQ(type_map(*hi), (std::vector<E>{{Builtin::kDouble, -8}, {Builtin::kDouble, 8}}));

  // vector with stride == blocklen is contiguous.
  TypeRef dense = vector(5, 3, 3, B(Builtin::kFloat));
  EXPECT_TRUE(dense->contiguous());
  EXPECT_EQ(dense->extent(), 60);
  TypeRef padded = structure({1, 1}, {0, 8}, {&B(Builtin::kDouble), &B(Builtin::kInt)});
  EXPECT_TRUE(padded->dense());  // 12 data bytes in a row ...
  EXPECT_FALSE(padded->contiguous());  // ... but items 16 bytes apart
  EXPECT_FALSE(v->dense());
  TypeRef ci = contiguous(7, B(Builtin::k2Int));
  EXPECT_TRUE(ci->contiguous());
  EXPECT_EQ(ci->elements(), 14);
}

TEST(Constructors, ZeroCountsAndZeroSize) {
  for (TypeRef t : {contiguous(0, B(Builtin::kInt)), vector(0, 2, 3, B(Builtin::kInt)),
                    vector(3, 0, 2, B(Builtin::kInt)), indexed({0, 0}, {5, 7}, B(Builtin::kInt)),
                    hindexed({}, {}, B(Builtin::kDouble)),
                    structure({0}, {8}, {&B(Builtin::kDouble)})}) {
    EXPECT_EQ(t->size(), 0);
    EXPECT_EQ(t->lb(), 0);
    EXPECT_EQ(t->extent(), 0);
    EXPECT_EQ(t->elements(), 0);
    EXPECT_TRUE(t->data_program().empty());
  }
  // Zero-length blocks do not count towards the bounds.
  TypeRef ix = indexed({0, 2, 0}, {-10, 3, 20}, B(Builtin::kInt));
  EXPECT_EQ(ix->lb(), 12);
  EXPECT_EQ(ix->ub(), 20);
  // Zero copies of a huge block: nothing to overflow.
  TypeRef huge = contiguous(1 << 30, B(Builtin::kLongDoubleInt));
  TypeRef none = hvector(0, 1 << 30, int64_t{1} << 62, *huge);
  EXPECT_EQ(none->size(), 0);
  EXPECT_EQ(none->extent(), 0);
  TypeRef c = contiguous(4, *contiguous(0, B(Builtin::kInt)));
  EXPECT_EQ(c->size(), 0);
  EXPECT_EQ(c->extent(), 0);
}

TEST(Constructors, Errors) {
  TypeRef t;
  const Type& i = B(Builtin::kInt);
  EXPECT_EQ(make_contiguous(-1, i, &t), Err::kCount);
  EXPECT_EQ(make_vector(-1, 1, 1, i, &t), Err::kCount);
  EXPECT_EQ(make_vector(1, -1, 1, i, &t), Err::kArg);
  EXPECT_EQ(make_hvector(2, -3, 1, i, &t), Err::kArg);
  EXPECT_EQ(make_indexed(std::vector<int>{1, -1}, std::vector<int>{0, 1}, i, &t), Err::kArg);
  EXPECT_EQ(make_indexed(std::vector<int>{1}, std::vector<int>{0, 1}, i, &t), Err::kArg);
  EXPECT_EQ(make_hindexed(std::vector<int>{-2}, std::vector<int64_t>{0}, i, &t), Err::kArg);
  const Type* ts[] = {&i, nullptr};
  EXPECT_EQ(make_struct(std::vector<int>{1, 1}, std::vector<int64_t>{0, 4}, ts, &t), Err::kType);
  // Sizes beyond 63 bits.
  TypeRef big = contiguous(1 << 30, B(Builtin::kLongDoubleInt));
  TypeRef bigger = contiguous(1 << 20, *big);  // 2^54 bytes: a valid description
  EXPECT_EQ(make_contiguous(1 << 30, *bigger, &t), Err::kArg);
  EXPECT_EQ(make_hvector(3, 1, int64_t{1} << 62, i, &t), Err::kArg);
  EXPECT_EQ(packed_bytes(*bigger, 1 << 30), -1);
  EXPECT_FALSE(t);
}

TEST(Lifetime, ChildrenLiveAsLongAsTheirParents) {
  TypeRef parent;
  {
    TypeRef child = vector(3, 1, 2, B(Builtin::kDouble));
    parent = contiguous(2, *child);
  }  // the user freed the child
  std::vector<double> src(12), dst(6);
  for (int k = 0; k < 12; ++k) src[k] = k;
  Cursor c(src.data(), 1, *parent);
  EXPECT_EQ(c.pack(dst.data(), 1000), 48u);
  EXPECT_EQ(dst, (std::vector<double>{0, 2, 4, 5, 7, 9}));  // second item 40 bytes on
  // A cursor keeps its type alive as well.
  TypeRef tmp = contiguous(2, B(Builtin::kInt));
  int in[2] = {7, 8}, out[2] = {};
  Cursor held(in, 1, *tmp);
  tmp = TypeRef();
  EXPECT_EQ(held.pack(out, 8), 8u);
  EXPECT_EQ(out[1], 8);
  TypeRef a = builtin_ref(Builtin::kInt), b = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.get(), &builtin_type(Builtin::kInt));
}

TEST(Lifetime, CommitSetsTheFlag) {
  TypeRef t = contiguous(2, B(Builtin::kInt));
  EXPECT_FALSE(t->committed());
  t->commit();
  EXPECT_TRUE(t->committed());
}

}  // namespace
}  // namespace ftmpi::dtype
