// The hash of a token's bytes in the rank tables: shared by the build script that writes the
// tables and by `render::ranks`, which reads them (both `include!` this file).

/// FNV-1a over the bytes, then a multiplicative finaliser (the table's index is the low bits).
#[inline]
pub fn rank_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
}
