"""``x ** y`` as V8's fdlibm port computes it: the floats of core's ``v8Pow`` (core/numeric/v8-pow.ts).

The service raises retentions to ``gamma`` and takes the geometric mean's root with ``v8Pow``, which
is what V8 up to Node 22 computes for ``**`` (core keeps it so that its floats do not depend on the
Node that runs it). Python's ``**`` is the C library's pow, which differs from it in the last bit
for about 10% of inputs, so the worker computes it the same way, operation for operation, on what
gear raises: a finite base >= 0 to a finite power.

The algorithm is fdlibm's e_pow.c (Copyright (C) 1993 by Sun Microsystems, Inc. All rights
reserved. Developed at SunSoft, a Sun Microsystems, Inc. business. Permission to use, copy, modify,
and distribute this software is freely granted, provided that this notice is preserved.), with
V8's one change in the last step (see below).
"""

from __future__ import annotations

import math
import struct

__all__ = ["v8_pow"]

_DOUBLE = struct.Struct("<d")
_WORD64 = struct.Struct("<Q")

_BP = (1.0, 1.5)
_DP_H = (0.0, 5.84962487220764160156e-01)  # 0x3FE2B803, 0x40000000
_DP_L = (0.0, 1.35003920212974897128e-08)  # 0x3E4CFDEB, 0x43CFD006
_TWO53 = 9007199254740992.0
_HUGE = 1.0e300
_TINY = 1.0e-300
# The polynomial for log(x) on [sqrt(2)/2, sqrt(2)] (in (x-1)/(x+1)) and for exp near 0.
_L1 = 5.99999999999994648725e-01
_L2 = 4.28571428578550184252e-01
_L3 = 3.33333329818377432918e-01
_L4 = 2.72728123808534006489e-01
_L5 = 2.30660745775561754067e-01
_L6 = 2.06975017800338417784e-01
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
_LG2 = 6.93147180559945286227e-01
_LG2_H = 6.93147182464599609375e-01  # 0x3FE62E43, 0x00000000
_LG2_L = -1.90465429995776804525e-09  # 0xBE205C61, 0x0CA86C39
_OVT = 8.0085662595372944372e-17  # -(1024 - log2(ovfl + .5ulp))
_CP = 9.61796693925975554329e-01  # 2 / (3 ln 2)
_CP_H = 9.61796700954437255859e-01  # cp's high 32 bits
_CP_L = -7.02846165095275826516e-09  # cp - cp_h
_IVLN2 = 1.44269504088896338700e00  # 1 / ln 2
_IVLN2_H = 1.44269502162933349609e00  # its high 24 bits
_IVLN2_L = 1.92596299112661746887e-08  # the rest


def _words(x: float) -> tuple[int, int]:
    """The high word (as a signed 32-bit integer) and the low word of a double."""
    bits: int = _WORD64.unpack(_DOUBLE.pack(x))[0]
    high = bits >> 32
    return (high - 0x100000000 if high >= 0x80000000 else high), bits & 0xFFFFFFFF


def _double(high: int, low: int) -> float:
    value: float = _DOUBLE.unpack(_WORD64.pack(((high & 0xFFFFFFFF) << 32) | (low & 0xFFFFFFFF)))[0]
    return value


def _high(x: float) -> int:
    return _words(x)[0]


def _with_high(x: float, high: int) -> float:
    return _double(high, _words(x)[1])


def _low_cleared(x: float) -> float:
    return _double(_words(x)[0], 0)


def _reciprocal(x: float) -> float:
    """1 / x as C divides: an infinity of x's sign for a zero (Python raises)."""
    return math.copysign(math.inf, x) if x == 0 else 1.0 / x


def v8_pow(x: float, y: float) -> float:
    """``x ** y`` bit for bit as core's ``v8Pow``, for a finite ``x >= 0`` (or -0.0) and a finite ``y``.

    Raises:
        ValueError: ``x`` negative, or either not finite (gear raises neither).
    """
    if not (math.isfinite(x) and math.isfinite(y)) or x < 0:
        raise ValueError(f"v8_pow takes a finite x >= 0 and a finite y, got {x!r} and {y!r}")
    hx, lx = _words(x)
    hy, ly = _words(y)
    ix = hx & 0x7FFFFFFF
    iy = hy & 0x7FFFFFFF
    if (iy | ly) == 0:
        return 1.0
    if ly == 0:
        if iy == 0x3FF00000:  # y is +-1
            return _reciprocal(x) if hy < 0 else x
        if hy == 0x40000000:  # y is 2
            return x * x
        if hy == 0x3FE00000 and hx >= 0:  # y is 0.5, x is not -0
            return math.sqrt(x)
    ax = abs(x)
    if lx == 0 and (ix == 0 or ix == 0x3FF00000):  # x is +-0 or 1; -0 to an odd integer keeps its sign
        z = _reciprocal(ax) if hy < 0 else ax
        return -z if hx < 0 and float(y).is_integer() and abs(y) < _TWO53 and abs(y) % 2 == 1 else z

    if iy > 0x41E00000:  # |y| > 2**31
        if iy > 0x43F00000:  # |y| > 2**64: must overflow or underflow
            if ix <= 0x3FEFFFFF:
                return _HUGE * _HUGE if hy < 0 else _TINY * _TINY
            return _HUGE * _HUGE if hy > 0 else _TINY * _TINY
        if ix < 0x3FEFFFFF:  # x not close to one
            return _HUGE * _HUGE if hy < 0 else _TINY * _TINY
        if ix > 0x3FF00000:
            return _HUGE * _HUGE if hy > 0 else _TINY * _TINY
        # |1 - x| <= 2**-20: log(x) by x - x^2/2 + x^3/3 - x^4/4
        t = ax - 1.0
        w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25))
        u = _IVLN2_H * t
        v = t * _IVLN2_L - w * _IVLN2
        t1 = _low_cleared(u + v)
        t2 = v - (t1 - u)
    else:
        n = 0
        if ix < 0x00100000:  # subnormal x
            ax *= _TWO53
            n -= 53
            ix = _high(ax)
        n += (ix >> 20) - 0x3FF
        j = ix & 0x000FFFFF
        ix = j | 0x3FF00000  # x normalized to [1, 2)
        if j <= 0x3988E:  # |x| < sqrt(3/2)
            k = 0
        elif j < 0xBB67A:  # |x| < sqrt(3)
            k = 1
        else:
            k = 0
            n += 1
            ix -= 0x00100000
        ax = _with_high(ax, ix)
        # ss = s_h + s_l = (x - 1) / (x + 1) or (x - 1.5) / (x + 1.5)
        u = ax - _BP[k]
        v = 1.0 / (ax + _BP[k])
        ss = u * v
        s_h = _low_cleared(ss)
        t_h = _double(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0)  # ax + bp[k], high part
        t_l = ax - (t_h - _BP[k])
        s_l = v * ((u - s_h * t_h) - s_h * t_l)
        # log(ax)
        s2 = ss * ss
        r = s2 * s2 * (_L1 + s2 * (_L2 + s2 * (_L3 + s2 * (_L4 + s2 * (_L5 + s2 * _L6)))))
        r += s_l * (s_h + ss)
        s2 = s_h * s_h
        t_h = _low_cleared(3.0 + s2 + r)
        t_l = r - ((t_h - 3.0) - s2)
        u = s_h * t_h  # u + v = ss * (1 + ...)
        v = s_l * t_h + t_l * ss
        p_h = _low_cleared(u + v)  # 2 / (3 log 2) * (ss + ...)
        p_l = v - (p_h - u)
        z_h = _CP_H * p_h
        z_l = _CP_L * p_h + p_l * _CP + _DP_L[k]
        # log2(ax) = (ss + ...) * 2 / (3 log 2) = n + dp_h + z_h + z_l
        t = float(n)
        t1 = _low_cleared(((z_h + z_l) + _DP_H[k]) + t)
        t2 = z_l - (((t1 - t) - _DP_H[k]) - z_h)

    # (y1 + y2) * (t1 + t2), y split in two
    y1 = _low_cleared(y)
    p_l = (y - y1) * t1 + y * t2
    p_h = y1 * t1
    z = p_l + p_h
    j, i = _words(z)
    if j >= 0x40900000:  # z >= 1024
        if ((j - 0x40900000) | i) != 0 or p_l + _OVT > z - p_h:
            return _HUGE * _HUGE  # overflow
    elif (j & 0x7FFFFFFF) >= 0x4090CC00:  # z <= -1075
        if (((j - 0xC090CC00) & 0xFFFFFFFF) | i) != 0 or p_l <= z - p_h:
            return _TINY * _TINY  # underflow
    # 2 ** (p_h + p_l)
    i = j & 0x7FFFFFFF
    k = (i >> 20) - 0x3FF
    n = 0
    if i > 0x3FE00000:  # |z| > 0.5: n = [z + 0.5]
        n = j + (0x00100000 >> (k + 1))
        k = ((n & 0x7FFFFFFF) >> 20) - 0x3FF  # k of n
        t = _double(n & ~(0x000FFFFF >> k), 0)
        n = ((n & 0x000FFFFF) | 0x00100000) >> (20 - k)
        if j < 0:
            n = -n
        p_h -= t
    t = _low_cleared(p_l + p_h)
    u = t * _LG2_H
    v = (p_l - (t - p_h)) * _LG2 + t * _LG2_L
    z = u + v
    w = v - (z - u)
    t = z * z
    t1 = z - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    # V8's line, not fdlibm's r = (z * t1) / (t1 - 2) - (w + z * w): it divides by the difference,
    # which moves the last bit for ~4% of inputs (Java's StrictMath.pow is fdlibm's, without it).
    r = (z * t1) / ((t1 - 2.0) - (w + z * w))
    z = 1.0 - (r - z)
    j = _high(z) + (n << 20)
    if (j >> 20) <= 0:
        return math.ldexp(z, n)  # subnormal result
    return _with_high(z, j)
