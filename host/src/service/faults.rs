//! Fault injection for the isolation tests: inputs that make the conversion child panic,
//! abort, loop, allocate without bound, overflow its stack or run slowly.
//!
//! Compiled into debug builds only (release binaries have an empty [`maybe_inject`]) and
//! honoured only when the service was started with `QUIRE_TEST_FAULTS` set (or the
//! programmatic test option), so no upload can trigger it in production.
//!
//! An input triggers a fault when it starts with `QUIRE-FAULT:<name>`; names: `panic`,
//! `abort`, `loop`, `alloc`, `stack`, `exit`, `slow:<ms>` (sleeps `ms` in ten steps, reporting
//! progress, then converts normally).

#[cfg(debug_assertions)]
pub fn maybe_inject(bytes: &[u8], report: &mut dyn FnMut(u64, u64)) {
    let Some(rest) = bytes.strip_prefix(b"QUIRE-FAULT:") else {
        return;
    };
    let line = rest.split(|b| *b == b'\n').next().unwrap_or_default();
    let name = String::from_utf8_lossy(line).trim().to_string();
    match name.as_str() {
        "panic" => panic!("injected test fault: panic"),
        "abort" => std::process::abort(),
        "exit" => std::process::exit(3),
        "loop" => loop {
            std::hint::spin_loop();
        },
        "alloc" => {
            let mut hog: Vec<Vec<u8>> = Vec::new();
            loop {
                hog.push(vec![7u8; 16 << 20]);
                std::hint::black_box(&hog);
            }
        }
        "stack" => {
            std::hint::black_box(deep(0));
        }
        other => {
            if let Some(ms) = other
                .strip_prefix("slow:")
                .and_then(|m| m.parse::<u64>().ok())
            {
                for i in 1..=10 {
                    std::thread::sleep(std::time::Duration::from_millis(ms / 10));
                    report(i, 10);
                }
            }
        }
    }
}

#[cfg(debug_assertions)]
#[allow(unconditional_recursion)]
fn deep(n: u64) -> u64 {
    let frame = std::hint::black_box([n; 128]);
    deep(n + 1).wrapping_add(frame[0])
}

#[cfg(not(debug_assertions))]
pub fn maybe_inject(_bytes: &[u8], _report: &mut dyn FnMut(u64, u64)) {}
