/* fsim_simd.c - the GEMM inner kernels: portable C, and x86 SIMD chosen at run time.
 *
 * The design idea: GEMM dominates simulation time, and its result does not depend on the
 * order of its micro-ops (every update is ACC[a] += a dot product, wrapping to 32 bits, and
 * OUT[a] is the low byte of the final ACC[a]), so a kernel may compute each micro-op however is
 * fastest as long as the sums are exact modulo 2^32. Each kernel set keeps its own copy of the
 * INP and WGT buffers in the layout its instructions want, refreshed by every LOAD of those
 * buffers, so the per-micro-op work is only loads, multiply-adds and one ACC/OUT update:
 *
 * - avx512-vnni: vpdpbusd multiplies unsigned by signed bytes, four at a time, into 32-bit
 *   lanes. Inputs are stored biased (x + 128, i.e. x ^ 0x80) and weights transposed so that
 *   lane o of vector q holds W[o][4q..4q+3]; then sum((x+128)*w) - 128*sum(w) = sum(x*w)
 *   exactly, with 128*sum(w) precomputed per weight row. A 1x16x16 micro-op is 4 vpdpbusd.
 *   Other shapes use 16-lane chunks with masks for a partial last chunk.
 * - avx2: vpmaddwd on 16-bit copies of both operands (exact: no saturation, unlike the 8-bit
 *   vpmaddubsw), 8 lanes at a time.
 * - portable: plain C on the buffers themselves; the reference the others are tested against.
 *
 * The x86 kernels are compiled with __attribute__((target)) so the library builds for any
 * x86-64 and picks a kernel set with __builtin_cpu_supports when a simulator is created.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/fsim/fsim_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#define FSIM_X86 1
#include <immintrin.h>
#else
#define FSIM_X86 0
#endif

#define INLINE static inline __attribute__((always_inline))

/* ---- Portable ---- */

INLINE void portable_body(vta_fsim *sim, const fsim_insn *in, uint32_t batch, uint32_t bin,
                          uint32_t bout) {
  const size_t inp_row = (size_t)batch * bin, wgt_row = (size_t)bout * bin;
  const size_t acc_row = (size_t)batch * bout;
  const vta_uop *uop = sim->uop;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t dd = (uint64_t)i * in->dst_out + (uint64_t)j * in->dst_in;
      uint64_t sd = (uint64_t)i * in->src_out + (uint64_t)j * in->src_in;
      uint64_t wd = (uint64_t)i * in->wgt_out + (uint64_t)j * in->wgt_in;
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        const vta_uop *u = &uop[k];
        const int8_t *x = sim->inp + (u->src + sd) * inp_row;
        const int8_t *w = sim->wgt + (u->wgt + wd) * wgt_row;
        int32_t *a = sim->acc + (u->dst + dd) * acc_row;
        uint8_t *o = sim->out + (u->dst + dd) * acc_row;
        for (uint32_t b = 0; b < batch; b++)
          for (uint32_t r = 0; r < bout; r++) {
            /* |sum| <= 64 * 128 * 128: no int32 overflow for any accepted block size. */
            int32_t sum = 0;
            for (uint32_t c = 0; c < bin; c++) sum += x[b * bin + c] * w[r * bin + c];
            uint32_t v = (uint32_t)a[b * bout + r] + (uint32_t)sum;
            a[b * bout + r] = (int32_t)v;
            o[b * bout + r] = (uint8_t)v;
          }
      }
    }
}

static void portable_gemm(vta_fsim *sim, const fsim_insn *in) {
  if (sim->batch == 1 && sim->block_in == 16 && sim->block_out == 16)
    portable_body(sim, in, 1, 16, 16);
  else
    portable_body(sim, in, sim->batch, sim->block_in, sim->block_out);
}

static const fsim_kernels k_portable = {"portable", NULL, NULL, portable_gemm};

#if FSIM_X86

static inline int32_t load32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* ---- avx512-vnni ---- */

#define VNNI_TARGET __attribute__((target("avx512f,avx512vnni")))

/* 4-byte groups per input row, 16-lane chunks per output row. */
static uint32_t vnni_nq(const vta_fsim *s) { return (s->block_in + 3) / 4; }
static uint32_t vnni_nch(const vta_fsim *s) { return (s->block_out + 15) / 16; }

static void vnni_layout(vta_fsim *s) {
  s->inp_k_row = (size_t)s->batch * vnni_nq(s) * 4;
  s->wgt_k_row = (size_t)vnni_nch(s) * vnni_nq(s) * 64;
  s->wgt_corr_row = (size_t)vnni_nch(s) * 16;
}

/* Biased inputs, each batch row padded to whole 4-byte groups (the padding meets zero weights). */
VNNI_TARGET static void vnni_prep_inp(vta_fsim *sim, uint32_t first, uint32_t n) {
  const uint32_t bin = sim->block_in, g = vnni_nq(sim) * 4;
  if (g == bin) {
    const int8_t *src = sim->inp + (size_t)first * sim->inp_row;
    uint8_t *dst = sim->inp_k + (size_t)first * sim->inp_k_row;
    const size_t bytes = (size_t)n * sim->inp_row;
    const __m512i bias = _mm512_set1_epi8((char)0x80);
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64)
      _mm512_storeu_si512(dst + i, _mm512_xor_si512(_mm512_loadu_si512(src + i), bias));
    for (; i < bytes; i++) dst[i] = (uint8_t)src[i] ^ 0x80u;
    return;
  }
  for (uint32_t e = first; e < first + n; e++)
    for (uint32_t b = 0; b < sim->batch; b++) {
      const int8_t *src = sim->inp + (size_t)e * sim->inp_row + (size_t)b * bin;
      uint8_t *dst = sim->inp_k + (size_t)e * sim->inp_k_row + (size_t)b * g;
      for (uint32_t c = 0; c < g; c++) dst[c] = c < bin ? (uint8_t)src[c] ^ 0x80u : 0x80u;
    }
}

/* Weights transposed to [chunk][group q][lane][4 bytes], and -128 * (row sum) per lane: the
 * row sums by vpdpbusd of the transposed groups with bytes of 1 (exact, as the GEMM itself). */
VNNI_TARGET static void vnni_prep_wgt(vta_fsim *sim, uint32_t first, uint32_t n) {
  const uint32_t bin = sim->block_in, bout = sim->block_out;
  const uint32_t nq = vnni_nq(sim), nch = vnni_nch(sim);
  const __m512i ones = _mm512_set1_epi8(1);
  for (uint32_t e = first; e < first + n; e++) {
    const int8_t *src = sim->wgt + (size_t)e * sim->wgt_row;
    uint8_t *dst = sim->wgt_k + (size_t)e * sim->wgt_k_row;
    int32_t *corr = sim->wgt_corr + (size_t)e * sim->wgt_corr_row;
    if (bin % 4 == 0 && bout % 16 == 0) {
      /* Whole groups and chunks: a transpose of 4-byte words, vector q of chunk ch gathering
       * word q of the chunk's 16 rows. */
      const __m512i rows = _mm512_mullo_epi32(
          _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
          _mm512_set1_epi32((int)(bin / 4)));
      for (uint32_t ch = 0; ch < nch; ch++) {
        const int8_t *base = src + (size_t)16 * ch * bin;
        __m512i sum = _mm512_setzero_si512();
        for (uint32_t q = 0; q < nq; q++) {
          __m512i v = _mm512_i32gather_epi32(_mm512_add_epi32(rows, _mm512_set1_epi32((int)q)),
                                             base, 4);
          _mm512_store_si512(dst + ((size_t)ch * nq + q) * 64, v);
          sum = _mm512_dpbusd_epi32(sum, ones, v);
        }
        _mm512_store_si512(corr + 16 * ch, _mm512_mullo_epi32(sum, _mm512_set1_epi32(-128)));
      }
      continue;
    }
    for (uint32_t ch = 0; ch < nch; ch++)
      for (uint32_t q = 0; q < nq; q++)
        for (uint32_t l = 0; l < 16; l++)
          for (uint32_t t = 0; t < 4; t++) {
            uint32_t o = 16 * ch + l, c = 4 * q + t;
            dst[(((size_t)ch * nq + q) * 16 + l) * 4 + t] =
                o < bout && c < bin ? (uint8_t)src[(size_t)o * bin + c] : 0;
          }
    for (uint32_t o = 0; o < nch * 16; o++) {
      int32_t sum = 0;
      if (o < bout)
        for (uint32_t c = 0; c < bin; c++) sum += src[(size_t)o * bin + c];
      corr[o] = -128 * sum;
    }
  }
}

VNNI_TARGET INLINE void vnni_body(vta_fsim *sim, const fsim_insn *in, uint32_t batch,
                                  uint32_t nq, uint32_t nch, uint32_t bout) {
  const size_t xrow = sim->inp_k_row, wrow = sim->wgt_k_row, crow = sim->wgt_corr_row;
  const size_t arow = (size_t)batch * bout;
  const __mmask16 tail = (__mmask16)((1u << (bout % 16)) - 1);
  const vta_uop *uop = sim->uop;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t dd = (uint64_t)i * in->dst_out + (uint64_t)j * in->dst_in;
      uint64_t sd = (uint64_t)i * in->src_out + (uint64_t)j * in->src_in;
      uint64_t wd = (uint64_t)i * in->wgt_out + (uint64_t)j * in->wgt_in;
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        const vta_uop u = uop[k];
        const uint8_t *x = sim->inp_k + (u.src + sd) * xrow;
        const uint8_t *w = sim->wgt_k + (u.wgt + wd) * wrow;
        const int32_t *corr = sim->wgt_corr + (u.wgt + wd) * crow;
        int32_t *a = sim->acc + (u.dst + dd) * arow;
        uint8_t *o = sim->out + (u.dst + dd) * arow;
        for (uint32_t b = 0; b < batch; b++) {
          const uint8_t *xb = x + (size_t)b * nq * 4;
          for (uint32_t ch = 0; ch < nch; ch++) {
            const uint8_t *wc = w + (size_t)ch * nq * 64;
            /* Two independent chains so consecutive vpdpbusd overlap. */
            __m512i t0 = _mm512_load_si512(corr + 16 * ch), t1 = _mm512_setzero_si512();
            uint32_t q = 0;
            for (; q + 1 < nq; q += 2) {
              t0 = _mm512_dpbusd_epi32(t0, _mm512_set1_epi32(load32(xb + 4 * q)),
                                       _mm512_load_si512(wc + 64 * q));
              t1 = _mm512_dpbusd_epi32(t1, _mm512_set1_epi32(load32(xb + 4 * q + 4)),
                                       _mm512_load_si512(wc + 64 * q + 64));
            }
            if (q < nq)
              t0 = _mm512_dpbusd_epi32(t0, _mm512_set1_epi32(load32(xb + 4 * q)),
                                       _mm512_load_si512(wc + 64 * q));
            __m512i t = _mm512_add_epi32(t0, t1);
            int32_t *ap = a + (size_t)b * bout + 16 * ch;
            uint8_t *op = o + (size_t)b * bout + 16 * ch;
            if (16 * ch + 16 <= bout) {
              __m512i v = _mm512_add_epi32(_mm512_loadu_si512(ap), t);
              _mm512_storeu_si512(ap, v);
              _mm_storeu_si128((__m128i *)op, _mm512_cvtepi32_epi8(v));
            } else {
              __m512i v = _mm512_add_epi32(_mm512_maskz_loadu_epi32(tail, ap), t);
              _mm512_mask_storeu_epi32(ap, tail, v);
              _mm512_mask_cvtepi32_storeu_epi8(op, tail, v);
            }
          }
        }
      }
    }
}

/* The Bx16x16 shapes (the default B = 1, BATCH 2 and 4): an ACC element is B 16-lane vectors.
 * Consecutive micro-ops that accumulate into the same element (a blocked GEMM kernel summing
 * over input blocks) keep it in registers instead of a store and reload per micro-op; ACC and
 * OUT are written when the destination changes. Nothing else in a GEMM reads ACC, so this is
 * exact. The four weight vectors of a micro-op are loaded once for its B input rows. */
VNNI_TARGET static inline __attribute__((always_inline)) void
vnni_gemm_bx16x16(vta_fsim *sim, const fsim_insn *in, const uint32_t batch) {
  const vta_uop *uop = sim->uop;
  int32_t *cur = NULL;
  __m512i v[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                  _mm512_setzero_si512()};
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t dd = (uint64_t)i * in->dst_out + (uint64_t)j * in->dst_in;
      uint64_t sd = (uint64_t)i * in->src_out + (uint64_t)j * in->src_in;
      uint64_t wd = (uint64_t)i * in->wgt_out + (uint64_t)j * in->wgt_in;
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        const vta_uop u = uop[k];
        const uint8_t *x = sim->inp_k + (u.src + sd) * 16 * batch;
        const uint8_t *w = sim->wgt_k + (u.wgt + wd) * 256;
        const __m512i corr = _mm512_load_si512(sim->wgt_corr + (u.wgt + wd) * 16);
        const __m512i w0 = _mm512_load_si512(w), w1 = _mm512_load_si512(w + 64);
        const __m512i w2 = _mm512_load_si512(w + 128), w3 = _mm512_load_si512(w + 192);
        int32_t *a = sim->acc + (u.dst + dd) * 16 * batch;
        if (a != cur) {
          for (uint32_t b = 0; b < batch && cur; b++) {
            _mm512_storeu_si512(cur + 16 * b, v[b]);
            _mm_storeu_si128((__m128i *)(sim->out + (cur - sim->acc) + 16 * b),
                             _mm512_cvtepi32_epi8(v[b]));
          }
          cur = a;
          for (uint32_t b = 0; b < batch; b++) v[b] = _mm512_loadu_si512(a + 16 * b);
        }
        for (uint32_t b = 0; b < batch; b++) {
          const uint8_t *xb = x + 16 * b;
          __m512i t0 = _mm512_dpbusd_epi32(corr, _mm512_set1_epi32(load32(xb)), w0);
          __m512i t1 = _mm512_dpbusd_epi32(_mm512_setzero_si512(),
                                           _mm512_set1_epi32(load32(xb + 4)), w1);
          t0 = _mm512_dpbusd_epi32(t0, _mm512_set1_epi32(load32(xb + 8)), w2);
          t1 = _mm512_dpbusd_epi32(t1, _mm512_set1_epi32(load32(xb + 12)), w3);
          v[b] = _mm512_add_epi32(v[b], _mm512_add_epi32(t0, t1));
        }
      }
    }
  for (uint32_t b = 0; b < batch && cur; b++) {
    _mm512_storeu_si512(cur + 16 * b, v[b]);
    _mm_storeu_si128((__m128i *)(sim->out + (cur - sim->acc) + 16 * b),
                     _mm512_cvtepi32_epi8(v[b]));
  }
}

VNNI_TARGET static void vnni_gemm(vta_fsim *sim, const fsim_insn *in) {
  if (sim->block_in == 16 && sim->block_out == 16 && sim->batch == 1)
    vnni_gemm_bx16x16(sim, in, 1);
  else if (sim->block_in == 16 && sim->block_out == 16 && sim->batch == 2)
    vnni_gemm_bx16x16(sim, in, 2);
  else if (sim->block_in == 16 && sim->block_out == 16 && sim->batch == 4)
    vnni_gemm_bx16x16(sim, in, 4);
  else
    vnni_body(sim, in, sim->batch, vnni_nq(sim), vnni_nch(sim), sim->block_out);
}

static const fsim_kernels k_vnni = {"avx512-vnni", vnni_prep_inp, vnni_prep_wgt, vnni_gemm};

/* ---- avx2 ---- */

#define AVX2_TARGET __attribute__((target("avx2")))

/* 16-bit pairs per input row, 8-lane chunks per output row. */
static uint32_t avx2_np(const vta_fsim *s) { return (s->block_in + 1) / 2; }
static uint32_t avx2_nch(const vta_fsim *s) { return (s->block_out + 7) / 8; }

static void avx2_layout(vta_fsim *s) {
  s->inp_k_row = (size_t)s->batch * avx2_np(s) * 4;
  s->wgt_k_row = (size_t)avx2_nch(s) * avx2_np(s) * 32;
  s->wgt_corr_row = 0;
}

/* Inputs widened to int16, each batch row padded to whole pairs. */
static void avx2_prep_inp(vta_fsim *sim, uint32_t first, uint32_t n) {
  const uint32_t bin = sim->block_in, g = avx2_np(sim) * 2;
  for (uint32_t e = first; e < first + n; e++)
    for (uint32_t b = 0; b < sim->batch; b++) {
      const int8_t *src = sim->inp + (size_t)e * sim->inp_row + (size_t)b * bin;
      int16_t *dst = (int16_t *)(sim->inp_k + (size_t)e * sim->inp_k_row) + (size_t)b * g;
      for (uint32_t c = 0; c < g; c++) dst[c] = c < bin ? src[c] : 0;
    }
}

/* Weights widened to int16 and transposed to [chunk][pair p][lane][2]. */
static void avx2_prep_wgt(vta_fsim *sim, uint32_t first, uint32_t n) {
  const uint32_t bin = sim->block_in, bout = sim->block_out;
  const uint32_t np = avx2_np(sim), nch = avx2_nch(sim);
  for (uint32_t e = first; e < first + n; e++) {
    const int8_t *src = sim->wgt + (size_t)e * sim->wgt_row;
    int16_t *dst = (int16_t *)(sim->wgt_k + (size_t)e * sim->wgt_k_row);
    for (uint32_t ch = 0; ch < nch; ch++)
      for (uint32_t p = 0; p < np; p++)
        for (uint32_t l = 0; l < 8; l++)
          for (uint32_t t = 0; t < 2; t++) {
            uint32_t o = 8 * ch + l, c = 2 * p + t;
            dst[(((size_t)ch * np + p) * 8 + l) * 2 + t] =
                o < bout && c < bin ? src[(size_t)o * bin + c] : 0;
          }
  }
}

/* x[2p]*w[o][2p] + x[2p+1]*w[o][2p+1] for the 8 lanes o of one chunk: exact in 32 bits. */
AVX2_TARGET INLINE __m256i avx2_pair(const uint8_t *x, const uint8_t *w) {
  return _mm256_madd_epi16(_mm256_set1_epi32(load32(x)), _mm256_load_si256((const __m256i *)w));
}

AVX2_TARGET INLINE void avx2_body(vta_fsim *sim, const fsim_insn *in, uint32_t batch, uint32_t np,
                                  uint32_t nch, uint32_t bout) {
  const size_t xrow = sim->inp_k_row, wrow = sim->wgt_k_row;
  const size_t arow = (size_t)batch * bout;
  /* Low byte of each 32-bit lane to the bottom of each 128-bit half, then both halves. */
  const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        -1, -1);
  const __m256i join = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
  const vta_uop *uop = sim->uop;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t dd = (uint64_t)i * in->dst_out + (uint64_t)j * in->dst_in;
      uint64_t sd = (uint64_t)i * in->src_out + (uint64_t)j * in->src_in;
      uint64_t wd = (uint64_t)i * in->wgt_out + (uint64_t)j * in->wgt_in;
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        const vta_uop u = uop[k];
        const uint8_t *x = sim->inp_k + (u.src + sd) * xrow;
        const uint8_t *w = sim->wgt_k + (u.wgt + wd) * wrow;
        int32_t *a = sim->acc + (u.dst + dd) * arow;
        uint8_t *o = sim->out + (u.dst + dd) * arow;
        for (uint32_t b = 0; b < batch; b++) {
          const uint8_t *xb = x + (size_t)b * np * 4;
          for (uint32_t ch = 0; ch < nch; ch++) {
            const uint8_t *wc = w + (size_t)ch * np * 32;
            __m256i t0 = _mm256_setzero_si256(), t1 = _mm256_setzero_si256();
            uint32_t p = 0;
            for (; p + 1 < np; p += 2) {
              t0 = _mm256_add_epi32(t0, avx2_pair(xb + 4 * p, wc + 32 * p));
              t1 = _mm256_add_epi32(t1, avx2_pair(xb + 4 * p + 4, wc + 32 * p + 32));
            }
            if (p < np) t0 = _mm256_add_epi32(t0, avx2_pair(xb + 4 * p, wc + 32 * p));
            __m256i t = _mm256_add_epi32(t0, t1);
            int32_t *ap = a + (size_t)b * bout + 8 * ch;
            uint8_t *op = o + (size_t)b * bout + 8 * ch;
            if (8 * ch + 8 <= bout) {
              __m256i v = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)ap), t);
              _mm256_storeu_si256((__m256i *)ap, v);
              __m256i nb = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pick), join);
              _mm_storel_epi64((__m128i *)op, _mm256_castsi256_si128(nb));
            } else {
              int32_t tmp[8];
              _mm256_storeu_si256((__m256i *)tmp, t);
              for (uint32_t l = 0; l < bout - 8 * ch; l++) {
                uint32_t v = (uint32_t)ap[l] + (uint32_t)tmp[l];
                ap[l] = (int32_t)v;
                op[l] = (uint8_t)v;
              }
            }
          }
        }
      }
    }
}

AVX2_TARGET static void avx2_gemm(vta_fsim *sim, const fsim_insn *in) {
  if (sim->batch == 1 && sim->block_in == 16 && sim->block_out == 16)
    avx2_body(sim, in, 1, 8, 2, 16);
  else
    avx2_body(sim, in, sim->batch, avx2_np(sim), avx2_nch(sim), sim->block_out);
}

static const fsim_kernels k_avx2 = {"avx2", avx2_prep_inp, avx2_prep_wgt, avx2_gemm};

#endif /* FSIM_X86 */

/* ---- Selection ---- */

static int host_has(const fsim_kernels *k) {
  if (k == &k_portable) return 1;
#if FSIM_X86
  __builtin_cpu_init();
  if (k == &k_vnni)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
  if (k == &k_avx2) return __builtin_cpu_supports("avx2");
#endif
  return 0;
}

/* Every kernel set, best first. */
static const fsim_kernels *const k_all[] = {
#if FSIM_X86
    &k_vnni,
    &k_avx2,
#endif
    &k_portable,
};

void fsim_kernels_free(vta_fsim *sim) {
  free(sim->inp_k);
  free(sim->wgt_k);
  free(sim->wgt_corr);
  sim->inp_k = sim->wgt_k = NULL;
  sim->wgt_corr = NULL;
  sim->inp_k_row = sim->wgt_k_row = sim->wgt_corr_row = 0;
}

static void *alloc64(size_t n) {
  size_t sz = (n + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, sz ? sz : 64);
  if (p) memset(p, 0, sz ? sz : 64);
  return p;
}

static int install(vta_fsim *sim, const fsim_kernels *k, vta_error *err) {
  if (sim->kern == k) return VTA_OK;
  fsim_kernels_free(sim);
  sim->kern = &k_portable;
#if FSIM_X86
  if (k == &k_vnni) vnni_layout(sim);
  if (k == &k_avx2) avx2_layout(sim);
#endif
  if (k != &k_portable) {
    const uint32_t *depth = sim->cfg.depth;
    sim->inp_k = alloc64(sim->inp_k_row * depth[VTA_MEM_INP]);
    sim->wgt_k = alloc64(sim->wgt_k_row * depth[VTA_MEM_WGT]);
    sim->wgt_corr = alloc64(sim->wgt_corr_row * depth[VTA_MEM_WGT] * sizeof(int32_t));
    if (!sim->inp_k || !sim->wgt_k || !sim->wgt_corr) {
      fsim_kernels_free(sim);
      return vta_error_set(err, VTA_ERR_NOMEM,
                           "fsim: out of host memory for the %s kernels' buffer copies", k->name);
    }
    k->prep_inp(sim, 0, depth[VTA_MEM_INP]);
    k->prep_wgt(sim, 0, depth[VTA_MEM_WGT]);
  }
  sim->kern = k;
  return VTA_OK;
}

int fsim_kernels_select(vta_fsim *sim, int want_simd, vta_error *err) {
  for (size_t i = 0; i < sizeof k_all / sizeof k_all[0]; i++) {
    const fsim_kernels *k = k_all[i];
    if ((want_simd || k == &k_portable) && host_has(k)) return install(sim, k, err);
  }
  return install(sim, &k_portable, err);
}

int fsim_kernels_select_name(vta_fsim *sim, const char *name, vta_error *err) {
  for (size_t i = 0; i < sizeof k_all / sizeof k_all[0]; i++) {
    const fsim_kernels *k = k_all[i];
    if (strcmp(k->name, name) != 0) continue;
    if (!host_has(k))
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "fsim: this host cannot run the %s kernels", name);
    return install(sim, k, err);
  }
  return vta_error_set(err, VTA_ERR_INVALID,
                       "fsim: unknown kernel set '%s' (avx512-vnni, avx2, portable)", name);
}
