//! End-to-end tests of the conversion library live in `tests/`; this crate has no code of its own.
