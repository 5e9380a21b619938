#!/usr/bin/env python3
"""Checks the image convolution kernels' index arithmetic without a GPU
(sdk/src/cuda/image_conv3x3_device.cuh): the forward and weight-gradient kernels transcribed line
for line into Python (each warp's ldmatrix and mma.sync from tensor_core_emulation.py), against
direct float64 convolutions over the float16-rounded image, on small shapes: both strides, odd
sides, a partial last tile, blocks walking several tiles, 16 to 64 output channels, an image read
through NCHW and NHWC strides, and YOLOX's Focus (the four phases concatenated, then a 3x3
convolution) against the convolution of that concatenation. Exits 1 where they disagree (ctest image_conv_emulation). Pure
Python, seconds. Usage: python3 tests/tools/image_conv_emulation.py
"""
import random
import struct

from tensor_core_emulation import ldmatrix, mma

random.seed(3)
TILE = 128  # the kernels' kTile
THREADS, WARPS = TILE, TILE // 32


def half(v):
    """v rounded to float16 (what __floats2half2_rn does to each tap)."""
    return struct.unpack("e", struct.pack("e", v))[0]


class Geometry:
    def __init__(self, n, h, w, stride, k, nchw, focus=False):
        self.n, self.h, self.w, self.stride, self.k, self.focus = n, h, w, stride, k, focus
        self.oh, self.ow = (h // 2, w // 2) if focus else ((h - 1) // stride + 1, (w - 1) // stride + 1)
        self.taps = 108 if focus else 27  # Patch::kTaps
        self.reduction = (self.taps + 15) // 16 * 16  # kReduction<Patch>
        self.row = self.reduction + 8  # kRow<Patch>
        self.pixels = n * self.oh * self.ow
        # x's element strides: [N, 3, H, W] contiguous (NCHW) or channels-last (NHWC in memory)
        self.sn, self.sc, self.sh, self.sw = (3 * h * w, h * w, w, 1) if nchw else (3 * h * w, 1, 3 * w, 3)


def tap(x, g, n, oy, ox, real, t):
    """Patch3x3::tap and FocusPatch3x3::tap."""
    if not real or t >= g.taps:
        return 0.0
    if g.focus:
        r, s, q, c = t // 36, t // 12 % 3, t // 3 % 4, t % 3
        hy, hx = oy + r - 1, ox + s - 1
        if hy < 0 or hy >= g.oh or hx < 0 or hx >= g.ow:
            return 0.0
        iy, ix = 2 * hy + (q & 1), 2 * hx + (q >> 1)
    else:
        r, s, c = t // 9, t // 3 % 3, t % 3
        iy, ix = oy * g.stride + r - 1, ox * g.stride + s - 1
        if iy < 0 or iy >= g.h or ix < 0 or ix >= g.w:
            return 0.0
    return x[n * g.sn + c * g.sc + iy * g.sh + ix * g.sw]


def stage_patch(x, g, p, cols, row):
    """stage_patch: cols[row .. row + reduction) = pixel p's taps, rounded, zeros elsewhere (locate)."""
    rest = p // g.ow
    n, oy, ox, real = rest // g.oh, rest % g.oh, p % g.ow, p < g.pixels
    cols[row:row + g.reduction] = [half(tap(x, g, n, oy, ox, real, t)) for t in range(g.reduction)]


def forward(x, weight, g):
    """image_conv3x3_forward<K>: a block per TILE pixels; y dense NHWC."""
    K, R, ROW = g.k, g.reduction, g.row
    y = [None] * (g.pixels * K)
    taps = [None] * (K * ROW)
    for i in range(K * R):
        k, t = i // R, i % R
        taps[k * ROW + t] = weight[k * g.taps + t] if t < g.taps else 0.0
    for block in range((g.pixels + TILE - 1) // TILE):
        first = block * TILE
        cols = [None] * (TILE * ROW)
        for thread in range(THREADS):
            stage_patch(x, g, first + thread, cols, thread * ROW)
        for frag in range(TILE // 16):  # every warp's fragments, in any order
            acc = [[[0.0] * 4 for _ in range(32)] for _ in range(K // 8)]
            for kc in range(0, R, 16):
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
    """image_conv3x3_weight_grad<K> with `grid` blocks walking the tiles, each warp owning
    fragments warp, warp + WARPS, ...; the block's sums added into the float32 global sums."""
    K, ROW, TAPS = g.k, g.row, g.taps
    grad_row, n_frags = K + 8, g.reduction // 8
    frags = K // 16 * n_frags
    owned = (frags + WARPS - 1) // WARPS
    tiles = (g.pixels + TILE - 1) // TILE
    dw = [0.0] * (K * TAPS)
    for block in range(min(grid, tiles)):
        acc = [[[[0.0] * 4 for _ in range(32)] for _ in range(owned)] for _ in range(WARPS)]
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
            for warp in range(WARPS):
                for q in range(0, TILE, 16):
                    for o in range(owned):
                        frag = warp + o * WARPS
                        if frag >= frags:
                            break
                        mf, nf = frag // n_frags, frag % n_frags
                        a = ldmatrix(grads, [(q + l % 8 + (l // 8 >> 1) * 8) * grad_row + mf * 16 + (l // 8 & 1) * 8
                                             for l in range(32)], 4, True)
                        b = ldmatrix(cols, [(q + l % 8 + (l // 8 & 1) * 8) * ROW + nf * 8 for l in range(32)], 2, True)
                        mma(acc[warp][o], a, b)
        block_sums = [0.0] * (K * TAPS)
        for warp in range(WARPS):
            for o in range(owned):
                frag = warp + o * WARPS
                if frag >= frags:
                    break
                mf, nf = frag // n_frags, frag % n_frags
                for lane in range(32):
                    group, pair = lane // 4, (lane % 4) * 2
                    for e in range(4):
                        m, t = mf * 16 + group + (8 if e >= 2 else 0), nf * 8 + pair + (e & 1)
                        if t < TAPS:
                            block_sums[m * TAPS + t] += acc[warp][o][lane][e]
        for i in range(K * TAPS):
            dw[i] += block_sums[i]
    return dw


def reference(x, weight, dy, g):
    """Direct float64 convolution over the rounded image (after a Focus: over the composed 12
    phase channels, as YOLOX's Focus concatenates them), and its weight gradient in KRSC order."""
    K = g.k
    cin = 12 if g.focus else 3
    stride = 1 if g.focus else g.stride
    h, w = (g.oh, g.ow) if g.focus else (g.h, g.w)

    def plane(n, c, iy, ix):  # the convolution's input: the image, or Focus's cat of the four phases
        if g.focus:
            q, c = c // 3, c % 3
            iy, ix = 2 * iy + (q & 1), 2 * ix + (q >> 1)
        return half(x[n * g.sn + c * g.sc + iy * g.sh + ix * g.sw])

    y, dw = [0.0] * (g.pixels * K), [0.0] * (K * 9 * cin)
    for p in range(g.pixels):
        ox, oy, n = p % g.ow, p // g.ow % g.oh, p // (g.ow * g.oh)
        for r in range(3):
            for s in range(3):
                iy, ix = oy * stride + r - 1, ox * stride + s - 1
                if not (0 <= iy < h and 0 <= ix < w):
                    continue
                for c in range(cin):
                    v = plane(n, c, iy, ix)
                    t = (r * 3 + s) * cin + c
                    for k in range(K):
                        y[p * K + k] += v * weight[k * 9 * cin + t]
                        dw[k * 9 * cin + t] += dy[p * K + k] * v
    return y, dw


def check(n, h, w, stride, k, nchw, grid, focus=False):
    g = Geometry(n, h, w, stride, k, nchw, focus)
    x = [random.uniform(0, 1) for _ in range(n * 3 * h * w)]
    weight = [random.uniform(-1, 1) for _ in range(k * g.taps)]
    dy = [random.uniform(-1, 1) for _ in range(g.pixels * k)]
    y, dw = forward(x, weight, g), weight_grad(x, dy, g, grid)
    yr, dwr = reference(x, weight, dy, g)
    err = lambda a, b: max(abs(p - q) for p, q in zip(a, b))
    unwritten = sum(v is None for v in y)
    print(f"K={k} {n}x{h}x{w} {'Focus' if focus else f'stride {stride}'} {'NCHW' if nchw else 'NHWC'} grid={grid} ({g.pixels} pixels): "
          f"forward {err(y, yr):.2e}, weight grad {err(dw, dwr):.2e}; unwritten {unwritten}")
    # float64 sums in another order: anything beyond 1e-9 is an index wrong somewhere.
    return unwritten == 0 and max(err(y, yr), err(dw, dwr)) < 1e-9


results = [check(2, 13, 9, 2, 16, False, 3),    # one partial tile, odd sides at stride 2
           check(1, 20, 24, 1, 32, True, 2),    # four tiles, two blocks walking two each, NCHW strides
           check(3, 11, 17, 2, 64, False, 1),   # 162 pixels: a full tile and a partial one, one block
           check(1, 8, 40, 2, 16, True, 5),     # more blocks asked than tiles
           check(2, 18, 30, 1, 32, False, 2, focus=True),  # Focus: 270 half-size pixels, two blocks
           check(1, 10, 6, 1, 16, True, 1, focus=True)]    # Focus over NCHW strides, one partial tile
if not all(results):
    raise SystemExit("image_conv_emulation: the transcribed kernels disagree with the direct convolutions")
