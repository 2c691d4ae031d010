/* test_gemm_pack.c - the arithmetic of hw/rtl/vta_gemm.sv's two int8 products per DSP slice,
 * checked exhaustively where it can be and against the plain dot product everywhere else.
 *
 * One slice multiplies x (int8) by A = w_hi * 2^16 + w_lo, the weights of output channels 2j
 * (hi) and 2j+1 (lo) at the same input lane, built in fabric as a concatenation
 * {w_hi - (w_lo < 0) (9 bits), w_lo (16 bits)}. A pair of slices joined by their cascade holds
 * P = H * 2^16 + L, H and L each the sum of two products, plus a bias K_i that the first
 * slice of the pair adds through its C input. With u = P mod 2^16 and v = u ^ 0x8000 read as
 * int16:
 *   pair i >= 1, K = 32767:  hi = P >> 16, lo = v + 1; the + 1 is owed: every adder of the lo
 *                            tree has carry-in 1, and there are as many (N/2 - 1) as such pairs;
 *   pair 0, K = -32768:      lo = v and hi = (P >> 16) + 1, except when L = 32768 (ov, known
 *                            from the operands: x = w_lo = -128 in both lanes), where lo is
 *                            +32768 (v's sign cleared) and hi = P >> 16; the + !ov is the
 *                            carry-in of the hi tree's first adder above pair 0.
 * This file checks those claims: the operand, the ranges of L and H, every L with hi values
 * across H's range for both decodings, the overflow flag against every pair of products, and
 * a bit-level model of the tree (each level cut to its register width) against the dot
 * product for BLOCK_IN 4 to 64 on extremes and random data. The RTL itself is checked against
 * fsim by the differential tests (tests/sim, tests/hw).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#define PW 16 /* product width of two int8 */

/* The 25-bit A operand as the RTL builds it, read back as a signed number. */
static int64_t pack_a(int w_hi, int w_lo) {
  int64_t top = (int64_t)w_hi - (w_lo < 0 ? 1 : 0); /* 9 bits */
  uint64_t bits = ((uint64_t)(top & 0x1ff) << 16) | ((uint64_t)w_lo & 0xffff);
  return (bits & (1u << 24)) ? (int64_t)bits - (1 << 25) : (int64_t)bits;
}

/* Arithmetic shift right of a signed value (floor division by 2^n). */
static int64_t asr(int64_t v, int n) { return v >= 0 ? v >> n : -((-v + (1LL << n) - 1) >> n); }

/* v cut to `bits` bits, sign-extended (a register of that width). */
static int64_t cut(int64_t v, int bits) {
  uint64_t m = (bits == 64) ? ~0ULL : ((1ULL << bits) - 1);
  uint64_t u = (uint64_t)v & m;
  return (u >> (bits - 1)) & 1 ? (int64_t)(u | ~m) : (int64_t)u;
}

static void test_operand_is_exact_and_fits_25_bits(void **state) {
  (void)state;
  for (int hi = -128; hi <= 127; hi++)
    for (int lo = -128; lo <= 127; lo++) {
      int64_t a = pack_a(hi, lo);
      assert_int_equal(a, (int64_t)hi * 65536 + lo);
      assert_true(a >= -(1 << 24) && a < (1 << 24));
      int64_t top = hi - (lo < 0);
      assert_true(top >= -256 && top <= 255); /* the 9-bit decrement never overflows */
    }
}

static void test_pair_sums_lie_in_the_decodable_range(void **state) {
  (void)state;
  int pmin = 0, pmax = 0;
  for (int x = -128; x <= 127; x++)
    for (int w = -128; w <= 127; w++) {
      int p = x * w;
      if (p < pmin) pmin = p;
      if (p > pmax) pmax = p;
    }
  assert_int_equal(pmin, -16256);
  assert_int_equal(pmax, 16384);
  /* Two products: [-32512, 32768], 65,281 values, which 16 bits hold with either decoding. */
  assert_int_equal(2 * pmin, -32512);
  assert_int_equal(2 * pmax, 32768);
  /* The biased field L + 32767 stays in [0, 65535]; L + 32768 would not (L = 32768). */
  assert_true(2 * pmin + 32767 >= 0 && 2 * pmax + 32767 <= 65535);
  assert_true(2 * pmax + 32768 > 65535);
}

/* Every L of a pair, with the hi sum at its extremes and across its range. */
static void test_both_decodings_recover_every_pair(void **state) {
  (void)state;
  long checked = 0;
  for (int64_t h = -32512; h <= 32768; h += (h > -32510 && h < 32766) ? 251 : 1) {
    for (int64_t l = -32512; l <= 32768; l++) {
      int64_t p = h * 65536 + l;
      /* pair 0, bias -32768 */
      int64_t p0 = p - 32768;
      uint32_t u = (uint32_t)((uint64_t)p0 & 0xffff);
      int ov = l == 32768;
      int64_t v0 = (int16_t)(uint16_t)(u ^ 0x8000);
      int64_t lo = ov ? v0 + 65536 : v0; /* the sign bit cleared */
      int64_t hi = asr(p0, 16) + !ov;
      if (lo != l || hi != h) fail_msg("pair 0: H %lld L %lld gave %lld %lld", (long long)h,
                                       (long long)l, (long long)hi, (long long)lo);
      assert_true(!ov || v0 == -32768);
      /* pair i >= 1, bias 32767 through C */
      int64_t pb = p + 32767;
      uint32_t ub = (uint32_t)((uint64_t)pb & 0xffff);
      int64_t v = (int16_t)(uint16_t)(ub ^ 0x8000);
      if (v + 1 != l || asr(pb, 16) != h)
        fail_msg("biased pair: H %lld L %lld gave %lld %lld", (long long)h, (long long)l,
                 (long long)asr(pb, 16), (long long)(v + 1));
      checked++;
    }
  }
  assert_true(checked > 65281L * 200);
}

/* ov, as the RTL computes it from the operands, is exactly "the pair's lo sum is 32768". */
static void test_overflow_flag_matches_every_product_pair(void **state) {
  (void)state;
  /* a pair's sum is 32768 only if both products are 16384, the one maximum of x * w */
  for (int x = -128; x <= 127; x++)
    for (int w = -128; w <= 127; w++)
      assert_true(x * w < 16384 || (x == -128 && w == -128));
}

/* A bit-level model of one output pair's dot products as vta_gemm computes them: n leaves
 * (BLOCK_IN), x[n], whi[n], wlo[n]; out[0] (hi, channel 2j) and out[1] (lo, 2j+1). */
static void packed_dot(int n, const int8_t *x, const int8_t *whi, const int8_t *wlo,
                       int64_t out[2]) {
  int64_t hi[64], lo[64];
  int ov0 = x[0] == -128 && x[1] == -128 && wlo[0] == -128 && wlo[1] == -128;
  int L = 0;
  while ((1 << L) < n) L++;
  for (int i = 0; i < n / 2; i++) {
    int64_t m0 = x[2 * i] * pack_a(whi[2 * i], wlo[2 * i]);
    int64_t m1 = x[2 * i + 1] * pack_a(whi[2 * i + 1], wlo[2 * i + 1]);
    assert_true(m0 >= -(1LL << 32) && m0 < (1LL << 32)); /* 33-bit products */
    int64_t s = cut(m1 + m0 + (i ? 32767 : -32768), 34); /* T1: the second slice's P */
    uint32_t u = (uint32_t)((uint64_t)s & 0xffff);
    hi[i] = asr(s, 16); /* 18 bits, the value within 17 */
    lo[i] = (int16_t)(uint16_t)(u ^ 0x8000);
    if (i == 0 && ov0) lo[i] += 65536; /* {~u[15] & ~ov0, ~u[15], u[14:0]} */
    assert_true(cut(hi[i], PW + 1) == hi[i] && cut(lo[i], PW + 1) == lo[i]);
  }
  for (int l = 2; l <= L; l++)
    for (int i = 0; i < (n >> l); i++) {
      int64_t cin_hi = (l == 2 && i == 0) ? !ov0 : 0;
      int64_t h = hi[2 * i] + hi[2 * i + 1] + cin_hi;
      int64_t o = lo[2 * i] + lo[2 * i + 1] + 1;
      /* the register of level l is PW + l bits wide: nothing may be lost */
      assert_true(cut(h, PW + l) == h);
      assert_true(cut(o, PW + l) == o);
      hi[i] = h;
      lo[i] = o;
    }
  out[0] = hi[0];
  out[1] = lo[0];
}

static void check_dot(int n, const int8_t *x, const int8_t *whi, const int8_t *wlo) {
  int64_t got[2], want_hi = 0, want_lo = 0;
  for (int k = 0; k < n; k++) {
    want_hi += x[k] * whi[k];
    want_lo += x[k] * wlo[k];
  }
  packed_dot(n, x, whi, wlo, got);
  if (got[0] != want_hi || got[1] != want_lo)
    fail_msg("BLOCK_IN %d: packed (%lld, %lld), dot products (%lld, %lld)", n,
             (long long)got[0], (long long)got[1], (long long)want_hi, (long long)want_lo);
}

static void test_packed_tree_equals_the_dot_products(void **state) {
  (void)state;
  static const int8_t ext[] = {-128, -127, -1, 0, 1, 126, 127};
  int8_t x[64], whi[64], wlo[64];
  uint64_t r = 0x9e3779b97f4a7c15ULL;
  for (int n = 4; n <= 64; n *= 2) {
    /* every combination of extreme values, uniform over the lanes */
    for (unsigned a = 0; a < 7; a++)
      for (unsigned b = 0; b < 7; b++)
        for (unsigned c = 0; c < 7; c++) {
          for (int k = 0; k < n; k++) {
            x[k] = ext[a];
            whi[k] = ext[b];
            wlo[k] = ext[c];
          }
          check_dot(n, x, whi, wlo);
        }
    /* random lanes drawn from the extremes and from the whole range */
    for (int t = 0; t < 20000; t++) {
      for (int k = 0; k < n; k++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        int pick = (int)(r >> 62);
        uint8_t v0 = (uint8_t)(r >> 8), v1 = (uint8_t)(r >> 16), v2 = (uint8_t)(r >> 24);
        if (pick == 0) {
          x[k] = ext[(r >> 32) % 7];
          whi[k] = ext[(r >> 40) % 7];
          wlo[k] = ext[(r >> 48) % 7];
        } else {
          x[k] = (int8_t)v0;
          whi[k] = (int8_t)v1;
          wlo[k] = (int8_t)v2;
        }
      }
      check_dot(n, x, whi, wlo);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_operand_is_exact_and_fits_25_bits),
      cmocka_unit_test(test_pair_sums_lie_in_the_decodable_range),
      cmocka_unit_test(test_both_decodings_recover_every_pair),
      cmocka_unit_test(test_overflow_flag_matches_every_product_pair),
      cmocka_unit_test(test_packed_tree_equals_the_dot_products),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
