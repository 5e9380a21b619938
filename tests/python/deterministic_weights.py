"""The deterministic tensors both sides of the architecture fixtures use: the YOLOv9 and YOLOX
fixture scripts fill LibreYOLO's modules with them, and tests/unit/deterministic_weights.cpp
implements the same formulas, so the C++ modules hold exactly the same weights."""
import math

import torch


def pattern(count, seed):
    """Reproducible values in [-1, 1): 2 * frac(sin(12.9898 i + 78.233 seed) * 43758.5453) - 1
    for i < count, computed in float64, returned as float32 (a classic shader hash)."""
    i = torch.arange(count, dtype=torch.float64)
    x = torch.sin(i * 12.9898 + seed * 78.233) * 43758.5453
    return (2.0 * (x - torch.floor(x)) - 1.0).to(torch.float32)


def fill_deterministic(model, scale_matrices=False):
    """Fill every state-dict tensor from its key's position in sorted key order.

    scale_matrices: 2-D tensors (Linear, attention and embedding weights) get
    pattern / sqrt(shape[1]) instead of the BatchNorm-weight rule, so that transformer layers
    keep activations of order one (the DETR fixtures; the YOLO fixtures have no 2-D weights).

    conv weights: pattern * 2.5 / sqrt(fan_in) (activations neither vanish nor explode);
    biases and running_mean: 0.1 * pattern; BatchNorm weight: 1 + 0.1 * pattern;
    running_var: 1 + 0.5 * |pattern|.
    num_batches_tracked is left alone.
    """
    state = model.state_dict()
    with torch.no_grad():
        for index, key in enumerate(sorted(state)):
            tensor = state[key]
            if key.endswith("num_batches_tracked"):
                continue
            values = pattern(tensor.numel(), index).view(tensor.shape)
            if key.endswith("running_var"):
                values = 1.0 + 0.5 * values.abs()
            elif key.endswith("running_mean") or key.endswith("bias"):
                values = 0.1 * values
            elif tensor.dim() == 4:  # conv weight
                fan_in = tensor.shape[1] * tensor.shape[2] * tensor.shape[3]
                values = values * (2.5 / math.sqrt(fan_in))
            elif scale_matrices and tensor.dim() == 2:
                values = values / math.sqrt(tensor.shape[1])
            else:  # BatchNorm weight
                values = 1.0 + 0.1 * values
            tensor.copy_(values)
