#!/usr/bin/env python3
"""Checks the image convolution kernels' index arithmetic without a GPU
(sdk/src/cuda/image_conv3x3_device.cuh): the forward and weight-gradient kernels transcribed line
for line into Python (each warp's ldmatrix and mma.sync from tensor_core_emulation.py), against
direct float64 convolutions over the float16-rounded image, on small shapes: both strides, odd
sides, a partial last tile, blocks walking several tiles, 16 to 64 output channels, an image read
through NCHW and NHWC strides. Exits 1 where they disagree (ctest image_conv_emulation). Pure
Python, seconds. Usage: python3 tests/tools/image_conv_emulation.py
"""
import random
import struct

from tensor_core_emulation import ldmatrix, mma

random.seed(3)
TAPS, REDUCTION, ROW, TILE = 27, 32, 40, 128  # the kernels' kTaps, kReduction, kRow, kTile
THREADS = TILE


def half(v):
    """v rounded to float16 (what __floats2half2_rn does to each tap)."""
    return struct.unpack("e", struct.pack("e", v))[0]


class Geometry:
    def __init__(self, n, h, w, stride, k, nchw):
        self.n, self.h, self.w, self.stride, self.k = n, h, w, stride, k
        self.oh, self.ow = (h - 1) // stride + 1, (w - 1) // stride + 1
        self.pixels = n * self.oh * self.ow
        # x's element strides: [N, 3, H, W] contiguous (NCHW) or channels-last (NHWC in memory)
        self.sn, self.sc, self.sh, self.sw = (3 * h * w, h * w, w, 1) if nchw else (3 * h * w, 1, 3 * w, 3)


def stage_patch(x, g, p, cols, row):
    """stage_patch: cols[row .. row + 32) = pixel p's taps (r, s, c), rounded, zeros elsewhere."""
    v = [0.0] * REDUCTION
    if p < g.pixels:
        ox, rest = p % g.ow, p // g.ow
        oy, n = rest % g.oh, rest // g.oh
        for r in range(3):
            iy = oy * g.stride + r - 1
            if iy < 0 or iy >= g.h:
                continue
            for s in range(3):
                ix = ox * g.stride + s - 1
                if ix < 0 or ix >= g.w:
                    continue
                for c in range(3):
                    v[(r * 3 + s) * 3 + c] = x[n * g.sn + iy * g.sh + ix * g.sw + c * g.sc]
    cols[row:row + REDUCTION] = [half(e) for e in v]


def forward(x, weight, g):
    """image_conv3x3_forward<K>: a block per TILE pixels; y dense NHWC."""
    K = g.k
    y = [None] * (g.pixels * K)
    taps = [None] * (K * ROW)
    for i in range(K * REDUCTION):
        k, t = i // REDUCTION, i % REDUCTION
        taps[k * ROW + t] = weight[k * TAPS + t] if t < TAPS else 0.0
    for block in range((g.pixels + TILE - 1) // TILE):
        first = block * TILE
        cols = [None] * (TILE * ROW)
        for thread in range(THREADS):
            stage_patch(x, g, first + thread, cols, thread * ROW)
        for frag in range(TILE // 16):  # every warp's fragments, in any order
            acc = [[[0.0] * 4 for _ in range(32)] for _ in range(K // 8)]
            for kc in range(0, REDUCTION, 16):
                a = ldmatrix(cols, [(frag * 16 + l % 8 + (l // 8 & 1) * 8) * ROW + kc + (l // 8 >> 1) * 8
                                    for l in range(32)], 4, False)
                for nf in range(K // 8):
                    b = ldmatrix(taps, [(nf * 8 + l % 8) * ROW + kc + (l // 8 & 1) * 8 for l in range(32)], 2, False)
                    mma(acc[nf], a, b)
            for lane in range(32):
                group, pair = lane // 4, (lane % 4) * 2
                p0 = first + frag * 16 + group
                p1 = p0 + 8
                for nf in range(K // 8):
                    ch = nf * 8 + pair
                    if p0 < g.pixels:
                        y[p0 * K + ch], y[p0 * K + ch + 1] = acc[nf][lane][0], acc[nf][lane][1]
                    if p1 < g.pixels:
                        y[p1 * K + ch], y[p1 * K + ch + 1] = acc[nf][lane][2], acc[nf][lane][3]
    return y


def weight_grad(x, dy, g, grid):
    """image_conv3x3_weight_grad<K> with `grid` blocks walking the tiles; then finish_if_last's
    cast: grad_weight[k][t] (KRSC) from the float32 sums."""
    K = g.k
    grad_row, m_frags, n_frags = K + 8, K // 16, REDUCTION // 8
    tiles = (g.pixels + TILE - 1) // TILE
    dw = [0.0] * (K * TAPS)
    for block in range(min(grid, tiles)):
        block_sums = [0.0] * (K * TAPS)
        acc = [[[[0.0] * 4 for _ in range(32)] for _ in range(n_frags)] for _ in range(m_frags)]
        for tile in range(block, tiles, min(grid, tiles)):
            first = tile * TILE
            cols = [None] * (TILE * ROW)
            grads = [None] * (TILE * grad_row)
            for thread in range(THREADS):
                stage_patch(x, g, first + thread, cols, thread * ROW)
            for i in range(TILE * K // 8):
                pixel, chunk = i // (K // 8), i % (K // 8)
                p = first + pixel
                for e in range(8):
                    grads[pixel * grad_row + chunk * 8 + e] = dy[p * K + chunk * 8 + e] if p < g.pixels else 0.0
            for step in range(TILE // 16):  # every warp's steps, in any order
                q = step * 16
                a = [ldmatrix(grads, [(q + l % 8 + (l // 8 >> 1) * 8) * grad_row + mf * 16 + (l // 8 & 1) * 8
                                      for l in range(32)], 4, True) for mf in range(m_frags)]
                for nf in range(n_frags):
                    b = ldmatrix(cols, [(q + l % 8 + (l // 8 & 1) * 8) * ROW + nf * 8 for l in range(32)], 2, True)
                    for mf in range(m_frags):
                        mma(acc[mf][nf], a[mf], b)
        for mf in range(m_frags):
            for nf in range(n_frags):
                for lane in range(32):
                    group, pair = lane // 4, (lane % 4) * 2
                    for e in range(4):
                        m, t = mf * 16 + group + (8 if e >= 2 else 0), nf * 8 + pair + (e & 1)
                        if t < TAPS:
                            block_sums[m * TAPS + t] += acc[mf][nf][lane][e]
        for i in range(K * TAPS):
            dw[i] += block_sums[i]
    return dw


def reference(x, weight, dy, g):
    """Direct float64 convolution over the rounded image, and its weight gradient [k][r][s][c]."""
    K = g.k
    y, dw = [0.0] * (g.pixels * K), [0.0] * (K * TAPS)
    for p in range(g.pixels):
        ox, oy, n = p % g.ow, p // g.ow % g.oh, p // (g.ow * g.oh)
        for r in range(3):
            for s in range(3):
                iy, ix = oy * g.stride + r - 1, ox * g.stride + s - 1
                if not (0 <= iy < g.h and 0 <= ix < g.w):
                    continue
                for c in range(3):
                    v = half(x[n * g.sn + iy * g.sh + ix * g.sw + c * g.sc])
                    t = (r * 3 + s) * 3 + c
                    for k in range(K):
                        y[p * K + k] += v * weight[k * TAPS + t]
                        dw[k * TAPS + t] += dy[p * K + k] * v
    return y, dw


def check(n, h, w, stride, k, nchw, grid):
    g = Geometry(n, h, w, stride, k, nchw)
    x = [random.uniform(0, 1) for _ in range(n * 3 * h * w)]
    weight = [random.uniform(-1, 1) for _ in range(k * TAPS)]
    dy = [random.uniform(-1, 1) for _ in range(g.pixels * k)]
    y, dw = forward(x, weight, g), weight_grad(x, dy, g, grid)
    yr, dwr = reference(x, weight, dy, g)
    err = lambda a, b: max(abs(p - q) for p, q in zip(a, b))
    unwritten = sum(v is None for v in y)
    print(f"K={k} {n}x{h}x{w} stride {stride} {'NCHW' if nchw else 'NHWC'} grid={grid} ({g.pixels} pixels): "
          f"forward {err(y, yr):.2e}, weight grad {err(dw, dwr):.2e}; unwritten {unwritten}")
    # float64 sums in another order: anything beyond 1e-9 is an index wrong somewhere.
    return unwritten == 0 and max(err(y, yr), err(dw, dwr)) < 1e-9


results = [check(2, 13, 9, 2, 16, False, 3),    # one partial tile, odd sides at stride 2
           check(1, 20, 24, 1, 32, True, 2),    # four tiles, two blocks walking two each, NCHW strides
           check(3, 11, 17, 2, 64, False, 1),   # 162 pixels: a full tile and a partial one, one block
           check(1, 8, 40, 2, 16, True, 5)]     # more blocks asked than tiles
if not all(results):
    raise SystemExit("image_conv_emulation: the transcribed kernels disagree with the direct convolutions")
