#!/usr/bin/env python3
"""Times the three PP-OCR models under onnxruntime on fixed input shapes (the shapes quire's
provider_two feeds them for a 200-dpi A4 page), to set beside rten on the same shapes
(`cargo run --release -p quire-ocr-ppocr --example runtime_bench`).

    python3 ort_models.py MODEL_DIR [THREADS]
"""
import sys
import time

import numpy as np
import onnxruntime as ort

SHAPES = {
    "PP-OCRv6_det_small.onnx": [(1, 3, 960, 672)],
    "PP-OCRv6_rec_small.onnx": [(6, 3, 48, 1472), (1, 3, 48, 320)],
    "ch_ppocr_mobile_v2.0_cls_mobile.onnx": [(48, 3, 48, 192)],
}


def main() -> None:
    model_dir = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    rng = np.random.default_rng(1)
    for name, shapes in SHAPES.items():
        sess = ort.InferenceSession(f"{model_dir}/{name}", opts, providers=["CPUExecutionProvider"])
        inp = sess.get_inputs()[0].name
        for shape in shapes:
            x = rng.standard_normal(shape, dtype=np.float32)
            sess.run(None, {inp: x})
            times = []
            for _ in range(5):
                t = time.perf_counter()
                sess.run(None, {inp: x})
                times.append(time.perf_counter() - t)
            times.sort()
            print(f"onnxruntime {name} {shape}: median {times[2] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
