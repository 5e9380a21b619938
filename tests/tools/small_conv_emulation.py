#!/usr/bin/env python3
"""Checks the small-channel convolution kernels' index arithmetic without a GPU
(sdk/src/cuda/small_conv3x3_device.cuh, which tests/tools/small_conv_probe.cu and the SDK's
launchers share): the forward, input-gradient and weight-gradient kernels transcribed line for
line into Python, each warp's mma.sync m16n8k16
assembled from the lanes' registers by the PTX fragment layouts, against direct float64
convolutions on small shapes (row bands that end inside a fragment, a partial last band, 24
channels padded to 32); exits 1 where they disagree (ctest small_conv_emulation). Pure Python,
seconds. Usage: python3 tests/tools/small_conv_emulation.py
"""
import random

from tensor_core_emulation import ldmatrix, mma

random.seed(1)

def load_band(x, img, h0, rows, h, w, c, cp):
    band_w = w + 2
    band = [0.0] * ((rows+2)*band_w*cp)
    for pixel in range((rows+2)*band_w):
        gh = h0 + pixel // band_w - 1; gw = pixel % band_w - 1
        for ch in range(cp):
            if 0 <= gh < h and 0 <= gw < w and ch < c:
                band[pixel*cp + ch] = x[((img*h + gh)*w + gw)*c + ch]
    return band

def load_weight(W, C, P, rows):
    """load_weight<C, P, rows>: shared [9][P][P], row k, column c, from W[k][tap][c], 8 halves a
    copy; zeros beyond C; rows past `rows` never written (None, so a read of one fails)."""
    wsm = [None]*(9*P*P)
    chunks = P//8
    for i in range(9*rows*chunks):
        chunk, row, tap = i % chunks, i // chunks % rows, i // (chunks*rows)
        for e in range(8):
            col = chunk*8 + e
            wsm[(tap*P + row)*P + col] = W[(row*9 + tap)*C + col] if row < C and col < C else 0.0
    return wsm

def forward(x, W, n, h, w, C, rows, input_gradient):
    """conv3x3_forward<C, input_gradient> on W (KRSC), a block per band."""
    CP = (C + 15)//16*16
    c = k = C
    y = [None] * (n*h*w*k)
    band_w = w + 2
    NF = C//8
    for img in range(n):  # blockIdx.y
        for bx in range((h + rows - 1)//rows):  # blockIdx.x
            h0 = bx*rows
            band = load_band(x, img, h0, rows, h, w, c, CP)
            wsm = load_weight(W, C, CP, CP if input_gradient else C)
            for frag in range(rows*w//16):
                acc = [[[0.0]*4 for _ in range(32)] for _ in range(NF)]
                a_row, b_row = [], []
                for lane in range(32):
                    matrix, row = lane // 8, lane % 8
                    b_row.append((lane % 16)*CP if input_gradient else row*CP + (matrix & 1)*8)
                    p = frag*16 + row + (matrix & 1)*8
                    a_row.append(((p // w)*band_w + p % w)*CP + (matrix >> 1)*8)
                for tap in range(9):
                    a_tap = [r + ((tap // 3)*band_w + tap % 3)*CP for r in a_row]
                    for kc in range(0, CP, 16):
                        a = ldmatrix(band, [r + kc for r in a_tap], 4, False)
                        for nf in range(NF):
                            if input_gradient:
                                b = ldmatrix(wsm, [r + ((8 - tap)*CP + kc)*CP + nf*8 for r in b_row], 2, True)
                            else:
                                b = ldmatrix(wsm, [r + (tap*CP + nf*8)*CP + kc for r in b_row], 2, False)
                            mma(acc[nf], a, b)
                for lane in range(32):
                    group, pair = lane//4, (lane%4)*2
                    p0 = frag*16 + group; p1 = p0 + 8
                    r0, c0, r1, c1 = p0//w, p0%w, p1//w, p1%w
                    for nf in range(NF):
                        ch = nf*8 + pair
                        if h0 + r0 < h:
                            base = ((img*h + h0 + r0)*w + c0)*k + ch
                            y[base], y[base+1] = acc[nf][lane][0], acc[nf][lane][1]
                        if h0 + r1 < h:
                            base = ((img*h + h0 + r1)*w + c1)*k + ch
                            y[base], y[base+1] = acc[nf][lane][2], acc[nf][lane][3]
    return y

def weight_grad(x, dy, n, h, w, k, rows, C, KP16, grid, replicas):
    """The kernel's grid-stride walk: block b takes bands b, b + grid, ...; one add per block, into
    copy b % replicas of the sums."""
    dw = [0.0] * (replicas*9*k*C)
    band_w = w + 2
    KM, KN = KP16//16, C//8
    KF = 9*KM*KN; WARPS = 8; OWNED = (KF + WARPS - 1)//WARPS
    per_image = (h + rows - 1)//rows; bands = per_image*n
    for block in range(min(grid, bands)):
        acc = [[[[0.0]*4 for _ in range(32)] for _ in range(OWNED)] for _ in range(WARPS)]
        for bnd in range(block, bands, min(grid, bands)):
            img, h0 = bnd // per_image, (bnd % per_image)*rows
            band = load_band(x, img, h0, rows, h, w, C, C)
            grads = [0.0]*(rows*w*KP16)
            for i in range(rows*w*KP16):
                channel, pixel = i % KP16, i // KP16
                gh = h0 + pixel // w
                grads[i] = dy[((img*h + gh)*w + pixel % w)*k + channel] if channel < k and gh < h else 0.0
            for warp in range(WARPS):
                for step in range(0, rows*w, 16):
                    a = [ldmatrix(grads, [(step + lane % 8 + (lane // 8 >> 1)*8)*KP16 + mf*16 + (lane // 8 & 1)*8
                                          for lane in range(32)], 4, True) for mf in range(KM)]
                    b_row = []
                    for lane in range(32):
                        q = step + lane % 8 + (lane // 8 & 1)*8
                        b_row.append(((q // w)*band_w + q % w)*C)
                    for o in range(OWNED):
                        frag = warp + o*WARPS
                        if frag >= KF: break
                        tap, mf, nf = frag // (KM*KN), frag // KN % KM, frag % KN
                        b = ldmatrix(band, [r + ((tap // 3)*band_w + tap % 3)*C + nf*8 for r in b_row], 2, True)
                        mma(acc[warp][o], a[0 if mf == 0 else KM - 1], b)
        for warp in range(WARPS):
            for o in range(OWNED):
                frag = warp + o*WARPS
                if frag >= KF: break
                tap, mf, nf = frag // (KM*KN), frag // KN % KM, frag % KN
                for lane in range(32):
                    group, pair = lane//4, (lane%4)*2
                    m0, n0 = mf*16 + group, nf*8 + pair
                    for e in range(4):
                        m = m0 + (8 if e >= 2 else 0); nn = n0 + (e & 1)
                        if m < k: dw[(block % replicas)*9*k*C + (tap*k + m)*C + nn] += acc[warp][o][lane][e]
    return dw

def finish(dw, k, c, replicas):
    """finish_if_last's cast: grad_weight[i] (KRSC) from the copies of the [tap][k][c] sums."""
    total = 9*k*c
    out = [0.0]*total
    for i in range(total):
        channel, tap, o = i % c, i // c % 9, i // (9*c)
        out[i] = sum(dw[r*total + (tap*k + o)*c + channel] for r in range(replicas))
    return out

def neighbours(n, h, w):
    """Every (output pixel, input pixel, tap) pair a 3x3 stride-1 padding-1 convolution joins,
    pixels as flat NHW indices."""
    for img in range(n):
        for i in range(h):
            for j in range(w):
                for tap in range(9):
                    ii, jj = i + tap//3 - 1, j + tap%3 - 1
                    if 0 <= ii < h and 0 <= jj < w:
                        yield (img*h + i)*w + j, (img*h + ii)*w + jj, tap

def reference_forward(x, W, n, h, w, c, k):  # W[k][tap][c]
    y = [0.0]*(n*h*w*k)
    for out, inp, tap in neighbours(n, h, w):
        for o in range(k):
            y[out*k + o] += sum(x[inp*c + ch] * W[(o*9 + tap)*c + ch] for ch in range(c))
    return y

def reference_dgrad(dy, W, n, h, w, c, k):
    dx = [0.0]*(n*h*w*c)
    for out, inp, tap in neighbours(n, h, w):
        for o in range(k):
            for ch in range(c): dx[inp*c + ch] += dy[out*k + o] * W[(o*9 + tap)*c + ch]
    return dx

def reference_wgrad(x, dy, n, h, w, c, k):  # [k][tap][c]
    dW = [0.0]*(k*9*c)
    for out, inp, tap in neighbours(n, h, w):
        for o in range(k):
            for ch in range(c): dW[(o*9 + tap)*c + ch] += dy[out*k + o] * x[inp*c + ch]
    return dW

def rows_for(w, target):
    rows = max(1, target // w)
    while rows*w % 16: rows += 1
    return rows

def check(CH, n, h, w, grid=3, grad_pixels=48, replicas=1):
    CP = (CH + 15)//16*16
    c = k = CH
    x = [random.uniform(-1,1) for _ in range(n*h*w*c)]
    dy = [random.uniform(-1,1) for _ in range(n*h*w*k)]
    W = [random.uniform(-1,1) for _ in range(k*9*c)]
    rows = rows_for(w, 32); rows_g = rows_for(w, grad_pixels)
    y = forward(x, W, n, h, w, CH, rows, False)
    yr = reference_forward(x, W, n, h, w, c, k)
    dx = forward(dy, W, n, h, w, CH, rows, True)
    dxr = reference_dgrad(dy, W, n, h, w, c, k)
    dwt = weight_grad(x, dy, n, h, w, k, rows_g, CH, CP, grid, replicas)
    dw = finish(dwt, k, c, replicas)
    dwr = reference_wgrad(x, dy, n, h, w, c, k)
    err = lambda a, b: max(abs(p - q) for p, q in zip(a, b))
    unwritten = sum(v is None for v in y)
    print(f"CH={CH} {n}x{h}x{w} rows={rows}/{rows_g} grid={grid} copies={replicas}: forward {err(y, yr):.2e}, input grad {err(dx, dxr):.2e}, weight grad {err(dw, dwr):.2e}; unwritten {unwritten}")
    # float64 sums in another order: anything beyond 1e-9 is an index wrong somewhere.
    return unwritten == 0 and max(err(y, yr), err(dx, dxr), err(dw, dwr)) < 1e-9

results = [check(16, 1, 6, 8), check(24, 1, 5, 8), check(32, 1, 4, 4),
           check(24, 3, 5, 8, grid=2, grad_pixels=16),  # blocks walking five and four bands, partial last bands
           check(16, 2, 4, 8, grid=3, grad_pixels=16, replicas=2)]  # three blocks' sums in two copies
if not all(results):
    raise SystemExit("small_conv_emulation: the transcribed kernels disagree with the direct convolutions")
