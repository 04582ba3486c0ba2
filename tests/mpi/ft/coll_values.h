/* Values and buffer verdicts shared by the fault-tolerant collective tests
 * (ft_coll.c, ft_coll_auto.c): receive buffers start filled with PATTERN,
 * contributions are f (one value per rank and item) or g (one per pair of
 * ranks), and judge() says what a receive buffer holds afterwards. */
#pragma once

#define PATTERN 0x5a5a5a5a
enum { UNTOUCHED = 0, CORRECT = 1, GARBAGE = 2, NA = 3 };

static inline int f(int r, int i) { return r * 1000 + i + 1; }
static inline int g(int s, int d, int i) { return s * 10000 + d * 100 + i % 100; }

/* Compares n values with expected ones: CORRECT, UNTOUCHED or GARBAGE. */
static inline int judge(const int* got, const int* want, int n) {
  int correct = 1, untouched = 1;
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) correct = 0;
    if (got[i] != PATTERN) untouched = 0;
  }
  return correct ? CORRECT : untouched ? UNTOUCHED : GARBAGE;
}
