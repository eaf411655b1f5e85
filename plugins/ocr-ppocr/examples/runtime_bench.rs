//! Times the three PP-OCR models under rten on fixed input shapes (those provider_two feeds
//! them for a 200-dpi A4 page), to set beside onnxruntime on the same shapes
//! (`scripts/bench-ocr/ort_models.py`).
//!
//! `cargo run --release -p quire-ocr-ppocr --example runtime_bench -- [MODEL_DIR]`

use rten::Model;
use rten_tensor::NdTensor;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| quire_testkit::runtime_dir().join("models"));
    let cases: [(&str, &[[usize; 4]]); 3] = [
        ("PP-OCRv6_det_small.onnx", &[[1, 3, 960, 672]]),
        (
            "PP-OCRv6_rec_small.onnx",
            &[[6, 3, 48, 1472], [1, 3, 48, 320]],
        ),
        ("ch_ppocr_mobile_v2.0_cls_mobile.onnx", &[[48, 3, 48, 192]]),
    ];
    for (name, shapes) in cases {
        let model = Model::load_file(dir.join(name)).expect("model loads");
        for &shape in shapes {
            let n: usize = shape.iter().product();
            // A fixed pseudo-random input in [-1, 1].
            let data: Vec<f32> = (0..n)
                .map(|i| ((i.wrapping_mul(2_654_435_761) % 2001) as f32 / 1000.0) - 1.0)
                .collect();
            let run = || {
                let input = NdTensor::from_data(shape, data.clone());
                model.run_one(input.into(), None).expect("model runs");
            };
            run();
            let mut times: Vec<f64> = (0..5)
                .map(|_| {
                    let t = Instant::now();
                    run();
                    t.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(f64::total_cmp);
            println!("rten {name} {shape:?}: median {:.0} ms", times[2] * 1000.0);
        }
    }
}
