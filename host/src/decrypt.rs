//! Password-protected OOXML (DOCX, XLSX, PPTX): an OLE2 container holding `EncryptionInfo`
//! and `EncryptedPackage`, decrypted here into the plain ZIP package the converters read.
//!
//! Supported: ECMA-376 *agile* encryption (MS-OFFCRYPTO 2.3.4.10–2.3.4.15), what Office 2010
//! and later write, with AES-128/192/256 in CBC mode and SHA-256/384/512 key derivation.
//! The password is checked against the file's verifier before anything is decrypted, so a
//! wrong one fails clearly. Not supported (a clear error says so): the older *standard*
//! encryption of Office 2007 (AES-ECB with SHA-1) and agile files hashed with SHA-1. The
//! package's HMAC (data integrity) is not checked: a damaged package fails as a damaged ZIP.
//!
//! Why our own: no crate on crates.io decrypts OOXML and is maintained (checked
//! 2026-11-25); RustCrypto's `aes` and `cbc` do the cryptography, `sha2` (already used by
//! webhook signing) the hashing, `cfb` (already used by detection) the container.

use aes::cipher::{BlockDecryptMut, KeyIvInit};
use base64::Engine as _;
use quire_plugin_api::{Error, Result};
use sha2::Digest;
use std::io::{Cursor, Read};

const BLOCK_VERIFIER_INPUT: [u8; 8] = [0xfe, 0xa7, 0xd2, 0x76, 0x3b, 0x4b, 0x9e, 0x79];
const BLOCK_VERIFIER_VALUE: [u8; 8] = [0xd7, 0xaa, 0x0f, 0x6d, 0x30, 0x61, 0x34, 0x4e];
const BLOCK_KEY: [u8; 8] = [0x14, 0x6e, 0x0b, 0xe7, 0xab, 0xac, 0xd0, 0xd6];
const SEGMENT: usize = 4096;
/// Office writes 100,000; a file asking for far more would only burn CPU.
const MAX_SPIN_COUNT: u32 = 10_000_000;

/// Decrypts an encrypted OOXML file (`label`: "DOCX", "XLSX", … for messages) with `password`.
pub fn ooxml(bytes: &[u8], password: &str, label: &str) -> Result<Vec<u8>> {
    let damaged = || Error::malformed(format!("The encrypted {label} file is damaged."));
    let mut cfb = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(|_| damaged())?;
    let mut info = Vec::new();
    cfb.open_stream("/EncryptionInfo")
        .and_then(|mut s| s.read_to_end(&mut info))
        .map_err(|_| damaged())?;
    let mut package = Vec::new();
    cfb.open_stream("/EncryptedPackage")
        .and_then(|mut s| s.read_to_end(&mut package))
        .map_err(|_| damaged())?;
    if info.len() < 8 {
        return Err(damaged());
    }
    let major = u16::from_le_bytes([info[0], info[1]]);
    let minor = u16::from_le_bytes([info[2], info[3]]);
    if (major, minor) != (4, 4) {
        return Err(Error::unsupported(format!(
            "The {label} file uses an older Office encryption (version {major}.{minor}) that quire cannot open; save it again with a current Office version, or without a password."
        )));
    }
    let xml = String::from_utf8_lossy(&info[8..]);
    let params = Agile::parse(&xml).ok_or_else(damaged)?;
    let key = params.package_key(password).map_err(|e| match e {
        KeyError::WrongPassword => Error::encrypted(format!(
            "The password given does not open this {label} file"
        )),
        KeyError::Unsupported(what) => Error::unsupported(format!(
            "The {label} file is encrypted with {what}, which quire cannot open."
        )),
        KeyError::Damaged => damaged(),
    })?;
    params.decrypt_package(&key, &package).ok_or_else(damaged)
}

#[derive(Debug)]
enum KeyError {
    WrongPassword,
    Unsupported(String),
    Damaged,
}

#[derive(Debug, Clone, Copy)]
enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    fn parse(name: &str) -> std::result::Result<Hash, KeyError> {
        match name {
            "SHA256" => Ok(Hash::Sha256),
            "SHA384" => Ok(Hash::Sha384),
            "SHA512" => Ok(Hash::Sha512),
            other => Err(KeyError::Unsupported(format!("the {other} hash"))),
        }
    }

    fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut d = D::new();
            for p in parts {
                d.update(p);
            }
            d.finalize().to_vec()
        }
        match self {
            Hash::Sha256 => run::<sha2::Sha256>(parts),
            Hash::Sha384 => run::<sha2::Sha384>(parts),
            Hash::Sha512 => run::<sha2::Sha512>(parts),
        }
    }
}

/// The `<keyData>` and password `<encryptedKey>` of an agile `EncryptionInfo`.
struct Agile {
    data_salt: Vec<u8>,
    data_hash: String,
    data_key_bits: usize,
    data_block: usize,
    spin_count: u32,
    key_salt: Vec<u8>,
    key_hash: String,
    key_bits: usize,
    verifier_input: Vec<u8>,
    verifier_value: Vec<u8>,
    encrypted_key: Vec<u8>,
    cipher: String,
    chaining: String,
}

impl Agile {
    fn parse(xml: &str) -> Option<Agile> {
        let key_data = element(xml, "keyData")?;
        let encrypted_key = element(xml, "encryptedKey")?;
        let b64 = |s: Option<&str>| -> Option<Vec<u8>> {
            base64::engine::general_purpose::STANDARD.decode(s?).ok()
        };
        let num = |s: Option<&str>| -> Option<usize> { s?.parse().ok() };
        Some(Agile {
            data_salt: b64(attr(key_data, "saltValue"))?,
            data_hash: attr(key_data, "hashAlgorithm")?.to_string(),
            data_key_bits: num(attr(key_data, "keyBits"))?,
            data_block: num(attr(key_data, "blockSize"))?,
            spin_count: attr(encrypted_key, "spinCount")?.parse().ok()?,
            key_salt: b64(attr(encrypted_key, "saltValue"))?,
            key_hash: attr(encrypted_key, "hashAlgorithm")?.to_string(),
            key_bits: num(attr(encrypted_key, "keyBits"))?,
            verifier_input: b64(attr(encrypted_key, "encryptedVerifierHashInput"))?,
            verifier_value: b64(attr(encrypted_key, "encryptedVerifierHashValue"))?,
            encrypted_key: b64(attr(encrypted_key, "encryptedKeyValue"))?,
            cipher: attr(encrypted_key, "cipherAlgorithm")?.to_string(),
            chaining: attr(encrypted_key, "cipherChaining")?.to_string(),
        })
    }

    /// The package key, after checking the password against the verifier.
    fn package_key(&self, password: &str) -> std::result::Result<Vec<u8>, KeyError> {
        if self.cipher != "AES" || self.chaining != "ChainingModeCBC" {
            return Err(KeyError::Unsupported(format!(
                "{} in {}",
                self.cipher, self.chaining
            )));
        }
        if self.spin_count > MAX_SPIN_COUNT {
            return Err(KeyError::Damaged);
        }
        let hash = Hash::parse(&self.key_hash)?;
        let utf16: Vec<u8> = password
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let mut h = hash.digest(&[&self.key_salt, &utf16]);
        for i in 0..self.spin_count {
            h = hash.digest(&[&i.to_le_bytes(), &h]);
        }
        let key_len = self.key_bits / 8;
        let derive = |block: &[u8]| fit(hash.digest(&[&h, block]), key_len, 0x36);
        let iv = fit(self.key_salt.clone(), 16, 0x36);
        let input = aes_cbc(&derive(&BLOCK_VERIFIER_INPUT), &iv, &self.verifier_input)
            .ok_or(KeyError::Damaged)?;
        let value = aes_cbc(&derive(&BLOCK_VERIFIER_VALUE), &iv, &self.verifier_value)
            .ok_or(KeyError::Damaged)?;
        let salt_len = self.key_salt.len().min(input.len());
        let expected = hash.digest(&[&input[..salt_len]]);
        if value.len() < expected.len() || value[..expected.len()] != expected[..] {
            return Err(KeyError::WrongPassword);
        }
        let key =
            aes_cbc(&derive(&BLOCK_KEY), &iv, &self.encrypted_key).ok_or(KeyError::Damaged)?;
        if key.len() < key_len {
            return Err(KeyError::Damaged);
        }
        Ok(key[..key_len].to_vec())
    }

    fn decrypt_package(&self, key: &[u8], package: &[u8]) -> Option<Vec<u8>> {
        if package.len() < 8 || key.len() * 8 != self.data_key_bits {
            return None;
        }
        let hash = Hash::parse(&self.data_hash).ok()?;
        let size = u64::from_le_bytes(package[..8].try_into().ok()?) as usize;
        let body = &package[8..];
        if size > body.len() {
            return None;
        }
        let mut out = Vec::with_capacity(body.len());
        for (i, segment) in body.chunks(SEGMENT).enumerate() {
            let iv = fit(
                hash.digest(&[&self.data_salt, &(i as u32).to_le_bytes()]),
                self.data_block,
                0x36,
            );
            // A last segment is padded to the cipher's block by the writer.
            out.extend_from_slice(&aes_cbc(key, &iv, segment)?);
        }
        out.truncate(size);
        Some(out)
    }
}

/// `bytes` cut or padded with `pad` to `len`.
fn fit(mut bytes: Vec<u8>, len: usize, pad: u8) -> Vec<u8> {
    bytes.resize(len, pad);
    bytes
}

/// AES-CBC decryption without padding; `None` for a bad key size or a partial block.
fn aes_cbc(key: &[u8], iv: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    if !data.len().is_multiple_of(16) || iv.len() != 16 {
        return None;
    }
    let mut buf = data.to_vec();
    fn run<C>(key: &[u8], iv: &[u8], buf: &mut [u8]) -> Option<()>
    where
        cbc::Decryptor<C>: KeyIvInit + BlockDecryptMut,
        C: aes::cipher::BlockCipher + aes::cipher::BlockDecryptMut,
    {
        let mut d = cbc::Decryptor::<C>::new_from_slices(key, iv).ok()?;
        for block in buf.chunks_exact_mut(16) {
            d.decrypt_block_mut(block.into());
        }
        Some(())
    }
    match key.len() {
        16 => run::<aes::Aes128>(key, iv, &mut buf)?,
        24 => run::<aes::Aes192>(key, iv, &mut buf)?,
        32 => run::<aes::Aes256>(key, iv, &mut buf)?,
        _ => return None,
    }
    Some(buf)
}

/// The attributes of the first element named `name` (any namespace prefix), as raw text.
fn element<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = xml[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before = xml[..at].chars().next_back();
        let after = xml[from..].chars().next();
        let starts = matches!(before, Some('<') | Some(':'));
        if starts && matches!(after, Some(c) if c.is_whitespace() || c == '/' || c == '>') {
            let end = xml[from..].find('>')?;
            return Some(&xml[from..from + end]);
        }
    }
    None
}

/// The value of attribute `name` in an element's attribute text.
fn attr<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = attrs[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before = attrs[..at].chars().next_back();
        if !matches!(before, Some(c) if c.is_whitespace()) {
            continue;
        }
        let rest = attrs[from..].trim_start();
        let rest = rest.strip_prefix('=')?.trim_start();
        let quote = rest.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let value = &rest[1..];
        return Some(&value[..value.find(quote)?]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_found_by_exact_name() {
        let xml = r#"<encryption><keyData saltSize="16" saltValue="AAE="/><p:encryptedKey spinCount="3" saltValue="Ag=="/></encryption>"#;
        let kd = element(xml, "keyData").unwrap();
        assert_eq!(attr(kd, "saltValue"), Some("AAE="));
        assert_eq!(attr(kd, "saltSize"), Some("16"));
        let ek = element(xml, "encryptedKey").unwrap();
        assert_eq!(attr(ek, "spinCount"), Some("3"));
        assert_eq!(attr(ek, "Count"), None);
    }

    #[test]
    fn a_file_that_is_not_ole2_is_damaged() {
        let e = ooxml(b"PK\x03\x04 not ole", "x", "DOCX").unwrap_err();
        assert_eq!(e.kind(), quire_plugin_api::ErrorKind::Malformed);
    }
}
