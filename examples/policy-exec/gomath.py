"""Go's float64 math functions as the lab's binary computes them.

The scheduler's arithmetic is IEEE double arithmetic in both languages, but
a few of Go's math functions are not those of C's libm, which Python's math
module wraps: math.Pow, math.Exp, math.Log and math.Exp2 are Go's own
algorithms (on linux/amd64, Exp and Log in assembly, Exp with fused
multiply-adds when the CPU has AVX and FMA), and math.Round rounds half away
from zero where Python's round() rounds half to even. This module ports the
ones the reference scheduler needs, operation for operation.
"""

import math
import struct
from fractions import Fraction


def _has_fma():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return "avx" in flags and "fma" in flags
    except OSError:
        pass
    return False


USE_FMA = _has_fma()


def fma(a, b, c):
    """a*b + c rounded once, as an FMA instruction computes it."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def go_round(x):
    """math.Round: the nearest integer, half away from zero (as a float)."""
    if math.isnan(x) or math.isinf(x):
        return x
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += math.copysign(1, x)
    return float(t)


def _bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _float(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def go_log(x):
    """math.Log as log_amd64.s computes it, for finite x > 0."""
    if x <= 0 or math.isinf(x) or math.isnan(x):
        return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    HSqrt2 = 7.07106781186547524401e-01
    Ln2Hi = 6.93147180369123816490e-01
    Ln2Lo = 1.90821492927058770002e-10
    L1 = 6.666666666666735130e-01
    L2 = 3.999999999940941908e-01
    L3 = 2.857142874366239149e-01
    L4 = 2.222219843214978396e-01
    L5 = 1.818357216161805012e-01
    L6 = 1.531383769920937332e-01
    L7 = 1.479819860511658591e-01
    b = _bits(x)
    f1 = _float((b & 0x000FFFFFFFFFFFFF) | 0x3FE0000000000000)
    k = float(((b >> 52) & 0x7FF) - 0x3FE)
    if f1 < HSqrt2:
        k -= 1.0
        f1 *= 2.0
    f = f1 - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (((L7 * s4 + L5) * s4 + L3) * s4 + L1)
    t2 = s4 * ((L6 * s4 + L4) * s4 + L2)
    R = t1 + t2
    hfsq = (0.5 * f) * f
    return k * Ln2Hi - ((hfsq - (s * (hfsq + R) + k * Ln2Lo)) - f)


def go_exp(x):
    """math.Exp as exp_amd64.s computes it, for finite x in range."""
    if math.isnan(x) or x > 7.09782712893384e02:
        return math.inf if x > 0 else x
    LOG2E = 1.4426950408889634073599246810018920
    LN2U = 0.69314718055966295651160180568695068359375
    LN2L = 0.28235290563031577122588448175013436025525412068e-12
    C = [0.5, 1.0, 2.0, 1.6666666666666666667e-1, 4.1666666666666666667e-2,
         8.3333333333333333333e-3, 1.3888888888888888889e-3,
         1.9841269841269841270e-4, 2.4801587301587301587e-5]
    e = round(LOG2E * x)  # CVTSD2SL: the current rounding mode, half to even
    fe = float(e)
    if USE_FMA:
        x0 = fma(-fe, LN2U, x)
        x0 = fma(-fe, LN2L, x0)
    else:
        x0 = x - LN2U * fe
        x0 = x0 - LN2L * fe
    x0 *= 0.0625
    order = [C[7], C[6], C[5], C[4], C[3], C[0], C[1]]
    x1 = C[8]
    for c in order:
        x1 = fma(x1, x0, c) if USE_FMA else x1 * x0 + c
    x0 = x0 * x1
    for i in range(4):
        x1 = x0 + 2.0
        if USE_FMA and i == 3:
            x0 = fma(x0, x1, 1.0)
        else:
            x0 = x0 * x1
    if not USE_FMA:
        x0 += 1.0
    e += 0x3FF
    if e <= 0:
        if e < -52:
            return 0.0
        x0 *= _float((e + 0x3FE) << 52)
        e = 1
    elif e >= 0x7FF:
        return math.inf
    return x0 * _float(e << 52)


def _expmulti(hi, lo, k):
    P1 = 1.66666666666666657415e-01
    P2 = -2.77777777770155933842e-03
    P3 = 6.61375632143793436117e-05
    P4 = -1.65339022054652515390e-06
    P5 = 4.13813679705723846039e-08
    r = hi - lo
    t = r * r
    c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))))
    y = 1 - ((lo - (r * c) / (2 - c)) - hi)
    return math.ldexp(y, k)


def go_exp2(x):
    """math.Exp2 (pure Go on amd64)."""
    Ln2Hi = 6.93147180369123816490e-01
    Ln2Lo = 1.90821492927058770002e-10
    if math.isnan(x):
        return x
    if x > 1.0239999999999999e03:
        return math.inf
    if x < -1.0740e03:
        return 0.0
    k = 0
    if x > 0:
        k = int(x + 0.5)
    elif x < 0:
        k = int(x - 0.5)
    t = x - float(k)
    hi = t * Ln2Hi
    lo = -t * Ln2Lo
    return _expmulti(hi, lo, k)


def go_pow(x, y):
    """math.Pow for the cases the scheduler uses (x > 0, finite y)."""
    if y == 0 or x == 1:
        return 1.0
    if y == 1:
        return x
    if y == 0.5:
        return math.sqrt(x)
    if y == -0.5:
        return 1 / math.sqrt(x)
    if x <= 0 or math.isinf(x) or math.isnan(x) or math.isinf(y) or math.isnan(y):
        return math.pow(x, y)
    yf, yi = math.modf(abs(y))
    a1 = 1.0
    ae = 0
    if yf != 0:
        if yf > 0.5:
            yf -= 1
            yi += 1
        a1 = go_exp(yf * go_log(x))
    x1, xe = math.frexp(x)
    i = int(yi)
    while i != 0:
        if xe < -(1 << 12) or (1 << 12) < xe:
            ae += xe
            break
        if i & 1 == 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1 = 1 / a1
        ae = -ae
    return math.ldexp(a1, ae)
