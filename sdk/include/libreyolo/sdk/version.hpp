#pragma once
// Versions of the public SDK. Bump LIBREYOLO_SDK_ABI_VERSION whenever a class or struct that
// crosses the plugin boundary changes layout or virtual functions: the host then refuses
// plugins built against the old headers instead of crashing inside them.
//
// ABI 3: sdk::BatchNorm2d (batch_norm.hpp), the BatchNorm the host can synchronise across GPUs;
//        families built before it cannot have used it.
// ABI 4: the recipe declares augmentation pipelines, an epoch schedule, multi-scale sizes,
//        parameter-group rules and frozen parameters (FamilyInfo's AugmentStyle is gone);
//        Detector::on_scheduled_change; EpochContext names its augmentation pipeline;
//        sdk::FrozenBatchNorm2d (frozen_batch_norm.hpp), BatchNorm2d with fixed statistics
//        for RT-DETR/D-FINE backbones.
// ABI 5: FamilyInfo::nms_candidates (how many candidates enter NMS; RTMDet's per-level
//        nms_pre); FamilyInfo::size_signature (a size read from
//        weights); the SDK's quality focal loss and dynamic soft-label assigner (RTMDet).
// ABI 6: the DETR toolkit (detr/*.hpp), Targets::host_counts, FamilyInfo::suppression and
//        FamilyInfo::eval_resize (RT-DETR).
// ABI 7: Policy::amp_off_reason (D-FINE: why float16 stays off); detr/fdr.hpp.
// ABI 8: Recipe::freeze_groups (freeze_groups.hpp): the groups LibreYOLO's freeze=N counts.
// ABI 9: sdk::batch_norm_silu (batch_norm_silu.hpp), the composed-or-fused BatchNorm + SiLU
//        the YOLO blocks call: a plugin using it needs an SDK that has it.
// ABI 10: CaptureRegion::step (the whole training step as one CUDA graph; YOLOv9, YOLOX);
//         sdk::avg_pool_2x2 (avg_pool_2x2.hpp), sdk::max_pool_same (max_pool_same.hpp);
//         set_fused_kernels' `only` kernel; FusedKernels::measured.
// ABI 11: Detector::prepare_training_forward and CaptureRegion::network_with_denoising (the
//         DETR decoder inside the captured region, its denoising queries padded);
//         detr::pad_denoising, detr::DenoisingInputs (with prepare_batch); DenoisingQueries::labels.

#define LIBREYOLO_SDK_VERSION "0.1.0"
#define LIBREYOLO_SDK_ABI_VERSION 11
