#!/usr/bin/env python3
"""Runs a LibreYOLO reference script with the DETR backbones' ImageNet download switched off.

LibreYOLO's RT-DETR sizes ask for ImageNet-pretrained backbone weights (RTDETR_CONFIGS'
backbone_pretrained) and download them through torch.hub when a model is built. The GPU machine
has no network, and the host trains its backbones from scratch, so for a like-for-like
comparison LibreYOLO does too: every config's backbone_pretrained is set to False, then the
script runs as if called directly.

Usage: PYTHONPATH=.reference python3 tests/python/libreyolo_no_download.py SCRIPT [ARGS ...]
"""
import runpy
import sys


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    from libreyolo.models.rtdetr import model as rtdetr_model
    for config in rtdetr_model.RTDETR_CONFIGS.values():
        config["backbone_pretrained"] = False
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
