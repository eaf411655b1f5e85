//! Windows code pages and RTF font charsets to `encoding_rs` encodings.

use encoding_rs::Encoding;

/// The encoding for a Windows code page number; unknown pages fall back to windows-1252,
/// which is what most RTF writers mean when they are vague.
pub fn for_codepage(cp: i32) -> &'static Encoding {
    use encoding_rs::*;
    match cp {
        65001 => UTF_8,
        866 => IBM866,
        874 => WINDOWS_874,
        932 | 943 => SHIFT_JIS,
        936 | 54936 => GBK,
        949 | 1361 => EUC_KR,
        950 => BIG5,
        1250 => WINDOWS_1250,
        1251 => WINDOWS_1251,
        1253 => WINDOWS_1253,
        1254 => WINDOWS_1254,
        1255 => WINDOWS_1255,
        1256 => WINDOWS_1256,
        1257 => WINDOWS_1257,
        1258 => WINDOWS_1258,
        10000 => MACINTOSH,
        10007 => X_MAC_CYRILLIC,
        20866 => KOI8_R,
        21866 => KOI8_U,
        28592 => ISO_8859_2,
        28595 => ISO_8859_5,
        28597 => ISO_8859_7,
        _ => WINDOWS_1252,
    }
}

/// The code page an RTF `\fcharsetN` stands for; `None` for ANSI/default (use `\ansicpg`).
pub fn for_charset(charset: i32) -> Option<i32> {
    Some(match charset {
        77 => 10000,
        128 => 932,
        129 => 949,
        130 => 1361,
        134 => 936,
        136 => 950,
        161 => 1253,
        162 => 1254,
        163 => 1258,
        177 => 1255,
        178 => 1256,
        186 => 1257,
        204 => 1251,
        222 => 874,
        238 => 1250,
        _ => return None,
    })
}
