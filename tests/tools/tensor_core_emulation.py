"""The tensor-core instructions the SDK's convolution kernels use (sdk/src/cuda/tensor_core_fragments.cuh),
emulated lane by lane in pure Python for the kernels' transcriptions (small_conv_emulation.py,
image_conv_emulation.py): mma.sync m16n8k16 assembled from the lanes' registers by the PTX
fragment layouts, and ldmatrix with its lane layout.
"""


def mma(acc, a, b):
    # a[lane] = 4 regs, each (lo, hi); b[lane] = 2 regs; acc[lane] = 4 floats
    A = [[0.0]*16 for _ in range(16)]; B = [[0.0]*8 for _ in range(16)]
    for lane in range(32):
        g, t = lane // 4, lane % 4
        (a0, a1, a2, a3) = a[lane]
        A[g][2*t], A[g][2*t+1] = a0; A[g+8][2*t], A[g+8][2*t+1] = a1
        A[g][2*t+8], A[g][2*t+9] = a2; A[g+8][2*t+8], A[g+8][2*t+9] = a3
        b0, b1 = b[lane]
        B[2*t][g], B[2*t+1][g] = b0; B[2*t+8][g], B[2*t+9][g] = b1
    D = [[sum(A[i][k]*B[k][j] for k in range(16)) for j in range(8)] for i in range(16)]
    for lane in range(32):
        g, t = lane // 4, lane % 4
        acc[lane][0] += D[g][2*t]; acc[lane][1] += D[g][2*t+1]
        acc[lane][2] += D[g+8][2*t]; acc[lane][3] += D[g+8][2*t+1]

def ldmatrix(mem, addrs, count, trans):
    """ldmatrix.m8n8.x{count}[.trans]: lane t names row t % 8 of matrix t // 8 (addrs[t], an element
    index of 8 contiguous halves); each lane receives, per matrix, the pair at row lane // 4,
    columns 2 * (lane % 4) and + 1 (.trans: column lane // 4, rows 2 * (lane % 4) and + 1)."""
    regs = [[None]*count for _ in range(32)]
    for m in range(count):
        rows = [mem[addrs[m*8 + r]:addrs[m*8 + r] + 8] for r in range(8)]
        for lane in range(32):
            g, t = lane // 4, lane % 4
            regs[lane][m] = (rows[2*t][g], rows[2*t+1][g]) if trans else (rows[g][2*t], rows[g][2*t+1])
    return regs
