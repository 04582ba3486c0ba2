/* Helpers shared by the collective test programs: patterns that every rank
 * can compute for any rank (the independent reference), guard words around
 * receive buffers, and the size lists. */
#ifndef FTMPI_TEST_COLL_UTIL_H
#define FTMPI_TEST_COLL_UTIL_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The value rank r contributes at index i for the variant `salt`. */
static inline int pattern(int r, long i, int salt) { return (int)((r * 1000003L + i * 7919L + salt * 31L) % 100003L); }

/* A receive buffer with guard words on both sides: check_guards() fails if a
 * collective wrote outside [0, bytes). */
#define GUARD_WORDS 4
#define GUARD_VALUE 0x5aa5c33cu
typedef struct {
  unsigned char* raw;
  void* data;
  size_t bytes;
} Guarded;

static inline Guarded guarded_alloc(size_t bytes, int fill) {
  Guarded g;
  g.bytes = bytes;
  g.raw = (unsigned char*)malloc(bytes + 2 * GUARD_WORDS * sizeof(uint32_t) + 8);
  CHECK(g.raw != NULL, "out of memory (%zu bytes)", bytes);
  uint32_t* lo = (uint32_t*)g.raw;
  for (int i = 0; i < GUARD_WORDS; ++i) lo[i] = GUARD_VALUE;
  g.data = g.raw + GUARD_WORDS * sizeof(uint32_t);
  memset(g.data, fill, bytes);
  unsigned char* hi = (unsigned char*)g.data + bytes;
  for (int i = 0; i < GUARD_WORDS; ++i) memcpy(hi + i * sizeof(uint32_t), &(uint32_t){GUARD_VALUE}, sizeof(uint32_t));
  return g;
}

static inline void check_guards(const Guarded* g, const char* what) {
  const uint32_t* lo = (const uint32_t*)g->raw;
  const unsigned char* hi = (const unsigned char*)g->data + g->bytes;
  for (int i = 0; i < GUARD_WORDS; ++i) {
    uint32_t h;
    memcpy(&h, hi + i * sizeof(uint32_t), sizeof h);
    CHECK(lo[i] == GUARD_VALUE && h == GUARD_VALUE, "%s wrote outside its receive buffer", what);
  }
}

static inline void guarded_free(Guarded* g) {
  free(g->raw);
  g->raw = NULL;
}

#endif
