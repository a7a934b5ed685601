/*
 * x ** y as V8's fdlibm port computes it, so that gear's floats do not depend on the Node that runs
 * them: V8 up to Node 22 computes `**` this way, and Node 24's V8 calls the C library's pow instead,
 * which differs in the last bit for about 10% of inputs.
 *
 * The algorithm is fdlibm's e_pow.c (Copyright (C) 1993 by Sun Microsystems, Inc. All rights
 * reserved. Developed at SunSoft, a Sun Microsystems, Inc. business. Permission to use, copy,
 * modify, and distribute this software is freely granted, provided that this notice is
 * preserved.), with V8's one change in the last step (see below).
 */

const DOUBLE = new Float64Array(1);
// The words of DOUBLE[0]: [low, high] on a little-endian machine, which every platform V8 runs on is.
const WORDS = new Uint32Array(DOUBLE.buffer);

const BP = [1.0, 1.5] as const;
const DP_H = [0.0, 5.84962487220764160156e-1] as const; // 0x3FE2B803, 0x40000000
const DP_L = [0.0, 1.35003920212974897128e-8] as const; // 0x3E4CFDEB, 0x43CFD006
const TWO53 = 9007199254740992.0;
const HUGE = 1.0e300;
const TINY = 1.0e-300;
// log(x) on [sqrt(2)/2, sqrt(2)] in s = (x - 1) / (x + 1), and exp near 0.
const L1 = 5.99999999999994648725e-1;
const L2 = 4.28571428578550184252e-1;
const L3 = 3.33333329818377432918e-1;
const L4 = 2.72728123808534006489e-1;
const L5 = 2.30660745775561754067e-1;
const L6 = 2.06975017800338417784e-1;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.6533902205465251539e-6;
const P5 = 4.13813679705723846039e-8;
const LG2 = 6.93147180559945286227e-1;
const LG2_H = 6.93147182464599609375e-1; // 0x3FE62E43, 0x00000000
const LG2_L = -1.90465429995776804525e-9; // 0xBE205C61, 0x0CA86C39
const OVT = 8.0085662595372944372e-17; // -(1024 - log2(ovfl + .5ulp))
const CP = 9.61796693925975554329e-1; // 2 / (3 ln 2)
const CP_H = 9.61796700954437255859e-1; // cp's high 32 bits
const CP_L = -7.02846165095275826516e-9; // cp - cp_h
const IVLN2 = 1.442695040888963387; // 1 / ln 2
const IVLN2_H = 1.44269502162933349609; // its high 24 bits
const IVLN2_L = 1.92596299112661746887e-8; // the rest

function highWord(x: number): number {
  DOUBLE[0] = x;
  return (WORDS[1] as number) | 0;
}

function lowWord(x: number): number {
  DOUBLE[0] = x;
  return WORDS[0] as number;
}

function fromWords(high: number, low: number): number {
  WORDS[1] = high;
  WORDS[0] = low;
  return DOUBLE[0] as number;
}

function withHigh(x: number, high: number): number {
  DOUBLE[0] = x;
  WORDS[1] = high;
  return DOUBLE[0] as number;
}

function lowCleared(x: number): number {
  DOUBLE[0] = x;
  WORDS[0] = 0;
  return DOUBLE[0] as number;
}

/** 2 ** e for a normal exponent (-1022 <= e <= 1023), from its bits. */
function powerOfTwo(e: number): number {
  return fromWords((e + 0x3ff) << 20, 0);
}

/** z * 2 ** n for a z near 1 and a result below the normal range, rounded once as C's scalbn. */
function scalbn(z: number, n: number): number {
  // In two halves, so that each factor is normal: the first product is exact, the second rounds.
  const half = n >> 1;
  return z * powerOfTwo(half) * powerOfTwo(n - half);
}

/**
 * `x ** y` bit for bit as V8's fdlibm port, for a finite `x >= 0` (or -0) and a finite `y`: what
 * gear raises (retentions to gamma, a product of factors to 1/n). Anything else is V8's own `**`.
 */
export function v8Pow(x: number, y: number): number {
  if (!(Number.isFinite(x) && Number.isFinite(y) && x >= 0)) return x ** y;
  const hx = highWord(x);
  const lx = lowWord(x);
  const hy = highWord(y);
  const ly = lowWord(y);
  let ix = hx & 0x7fffffff;
  const iy = hy & 0x7fffffff;
  if ((iy | ly) === 0) return 1;
  if (ly === 0) {
    if (iy === 0x3ff00000) return hy < 0 ? 1 / x : x; // y is +-1
    if (hy === 0x40000000) return x * x; // y is 2
    if (hy === 0x3fe00000 && hx >= 0) return Math.sqrt(x); // y is 0.5, x is not -0
  }
  let ax = Math.abs(x);
  if (lx === 0 && (ix === 0 || ix === 0x3ff00000)) {
    // x is +-0 or 1; -0 to an odd integer keeps its sign
    const z = hy < 0 ? 1 / ax : ax;
    return hx < 0 && Number.isInteger(y) && Math.abs(y) < TWO53 && Math.abs(y) % 2 === 1 ? -z : z;
  }

  let t1: number;
  let t2: number;
  if (iy > 0x41e00000) {
    // |y| > 2**31
    if (iy > 0x43f00000) {
      // |y| > 2**64: must overflow or underflow
      if (ix <= 0x3fefffff) return hy < 0 ? HUGE * HUGE : TINY * TINY;
      return hy > 0 ? HUGE * HUGE : TINY * TINY;
    }
    if (ix < 0x3fefffff) return hy < 0 ? HUGE * HUGE : TINY * TINY; // x not close to one
    if (ix > 0x3ff00000) return hy > 0 ? HUGE * HUGE : TINY * TINY;
    // |1 - x| <= 2**-20: log(x) by x - x^2/2 + x^3/3 - x^4/4
    const t = ax - 1;
    const w = t * t * (0.5 - t * (0.3333333333333333333333 - t * 0.25));
    const u = IVLN2_H * t;
    const v = t * IVLN2_L - w * IVLN2;
    t1 = lowCleared(u + v);
    t2 = v - (t1 - u);
  } else {
    let n = 0;
    if (ix < 0x00100000) {
      // subnormal x
      ax *= TWO53;
      n -= 53;
      ix = highWord(ax);
    }
    n += (ix >> 20) - 0x3ff;
    const j = ix & 0x000fffff;
    ix = j | 0x3ff00000; // x normalized to [1, 2)
    let k: 0 | 1;
    if (j <= 0x3988e) {
      k = 0; // |x| < sqrt(3/2)
    } else if (j < 0xbb67a) {
      k = 1; // |x| < sqrt(3)
    } else {
      k = 0;
      n += 1;
      ix -= 0x00100000;
    }
    ax = withHigh(ax, ix);
    // ss = s_h + s_l = (x - 1) / (x + 1) or (x - 1.5) / (x + 1.5)
    let u = ax - BP[k];
    let v = 1 / (ax + BP[k]);
    const ss = u * v;
    const sH = lowCleared(ss);
    let tH = fromWords(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0); // ax + bp[k], high part
    let tL = ax - (tH - BP[k]);
    const sL = v * (u - sH * tH - sH * tL);
    // log(ax)
    let s2 = ss * ss;
    let r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
    r += sL * (sH + ss);
    s2 = sH * sH;
    tH = lowCleared(3.0 + s2 + r);
    tL = r - (tH - 3.0 - s2);
    u = sH * tH; // u + v = ss * (1 + ...)
    v = sL * tH + tL * ss;
    const pH = lowCleared(u + v); // 2 / (3 log 2) * (ss + ...)
    const pL = v - (pH - u);
    const zH = CP_H * pH;
    const zL = CP_L * pH + pL * CP + DP_L[k];
    // log2(ax) = (ss + ...) * 2 / (3 log 2) = n + dp_h + z_h + z_l
    const t = n;
    t1 = lowCleared(zH + zL + DP_H[k] + t);
    t2 = zL - (t1 - t - DP_H[k] - zH);
  }

  // (y1 + y2) * (t1 + t2), y split in two
  const y1 = lowCleared(y);
  const pL = (y - y1) * t1 + y * t2;
  let pH = y1 * t1;
  let z = pL + pH;
  const j = highWord(z);
  let i = lowWord(z);
  if (j >= 0x40900000) {
    // z >= 1024
    if (((j - 0x40900000) | i) !== 0 || pL + OVT > z - pH) return HUGE * HUGE; // overflow
  } else if ((j & 0x7fffffff) >= 0x4090cc00) {
    // z <= -1075
    if (((j - 0xc090cc00) | i) !== 0 || pL <= z - pH) return TINY * TINY; // underflow
  }
  // 2 ** (p_h + p_l)
  i = j & 0x7fffffff;
  let k = (i >> 20) - 0x3ff;
  let n = 0;
  if (i > 0x3fe00000) {
    // |z| > 0.5: n = [z + 0.5]
    n = j + (0x00100000 >> (k + 1));
    k = ((n & 0x7fffffff) >> 20) - 0x3ff; // k of n
    const t = fromWords(n & ~(0x000fffff >> k), 0);
    n = ((n & 0x000fffff) | 0x00100000) >> (20 - k);
    if (j < 0) n = -n;
    pH -= t;
  }
  let t = lowCleared(pL + pH);
  const u = t * LG2_H;
  const v = (pL - (t - pH)) * LG2 + t * LG2_L;
  z = u + v;
  const w = v - (z - u);
  t = z * z;
  const t1e = z - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  // V8's line, not fdlibm's r = (z * t1) / (t1 - 2) - (w + z * w): it divides by the difference,
  // which moves the last bit for ~4% of inputs (Java's StrictMath.pow is fdlibm's, without it).
  const r = (z * t1e) / (t1e - 2 - (w + z * w));
  z = 1 - (r - z);
  const high = highWord(z) + (n << 20);
  if (high >> 20 <= 0) return scalbn(z, n); // subnormal result
  return withHigh(z, high);
}
