//! Encrypting a fresh object of a candidate that keeps the input's encryption, deterministically.
//!
//! lopdf's `encrypt_object` decides what is encrypted and with which crypt filter (strings and
//! streams, the exemptions of the PDF rules, a stream's own `/Crypt` filter), and its AES filters
//! (`AESV2`, `AESV3`) put a fresh random initialization vector in front of every string and
//! stream. Then the same candidate renders to other bytes each time, and whittle's cache and
//! journal, which know candidates by their bytes, would not recognize it. So every string and
//! stream lopdf encrypted with AES is encrypted again with the same key and an IV derived from
//! the object's number and generation and the clear bytes (SHA-256): the same candidate gives
//! the same file. (A predictable IV weakens CBC against chosen-plaintext attacks; the files whittle
//! can open have an empty user password, so their encryption protects nothing anyway.)

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use lopdf::encryption::crypt_filters::CryptFilter;
use lopdf::{EncryptionState, Object, ObjectId};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Encrypts `obj` (object `id`) with the input's security handler, with deterministic IVs.
pub(crate) fn encrypt(state: &EncryptionState, id: ObjectId, obj: &mut Object) {
    let clear = obj.clone();
    // An object that cannot be encrypted whole is encrypted as far as it can be, as lopdf does.
    let _ = lopdf::encryption::encrypt_object(state, id, obj);
    let filters: Vec<(Arc<dyn CryptFilter>, Vec<u8>)> = state
        .crypt_filters()
        .values()
        .filter(|f| matches!(f.method(), b"AESV2" | b"AESV3"))
        .filter_map(|f| {
            let key = f.compute_key(state.file_encryption_key(), id).ok()?;
            Some((Arc::clone(f), key))
        })
        .collect();
    if filters.is_empty() {
        return;
    }
    // Iterative: the object's nesting is bounded by what lopdf parses, but a walk by hand costs
    // nothing.
    let mut stack: Vec<(&Object, &mut Object)> = vec![(&clear, obj)];
    while let Some((c, e)) = stack.pop() {
        match (c, e) {
            (Object::String(c, _), Object::String(e, _)) => again(&filters, id, c, e),
            (Object::Array(c), Object::Array(e)) => stack.extend(c.iter().zip(e.iter_mut())),
            (Object::Dictionary(c), Object::Dictionary(e)) => {
                stack.extend(c.iter().map(|(_, v)| v).zip(e.iter_mut().map(|(_, v)| v)));
            }
            (Object::Stream(c), Object::Stream(e)) => {
                let mut content = std::mem::take(&mut e.content);
                again(&filters, id, &c.content, &mut content);
                e.content = content;
                stack.extend(
                    c.dict
                        .iter()
                        .map(|(_, v)| v)
                        .zip(e.dict.iter_mut().map(|(_, v)| v)),
                );
            }
            _ => {}
        }
    }
}

/// If `e` is `clear` encrypted with one of the AES `filters` (its IV first), encrypts `clear`
/// again with that filter's key and the deterministic IV, in place. The length does not change
/// (it depends on the clear length only), so a stream's `/Length` stays right.
fn again(filters: &[(Arc<dyn CryptFilter>, Vec<u8>)], id: ObjectId, clear: &[u8], e: &mut Vec<u8>) {
    if e.len() != 16 + (clear.len() / 16 + 1) * 16 {
        return;
    }
    for (filter, key) in filters {
        if filter.decrypt(key, e).is_ok_and(|d| d == clear)
            && let Some(fixed) = cbc(key, &iv(id, clear), clear)
        {
            *e = fixed;
            return;
        }
    }
}

/// The IV of `clear` in object `id`: the first 16 bytes of SHA-256 over both.
fn iv(id: ObjectId, clear: &[u8]) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(b"whittle-pdf iv");
    h.update(id.0.to_le_bytes());
    h.update(id.1.to_le_bytes());
    h.update(clear);
    let digest = h.finalize();
    let mut iv = [0u8; 16];
    iv.copy_from_slice(&digest[..16]);
    iv
}

/// `iv` followed by AES-CBC of `clear` with PKCS#5 padding, under a 16- or 32-byte key (what
/// lopdf's AES filters write and read).
fn cbc(key: &[u8], iv: &[u8; 16], clear: &[u8]) -> Option<Vec<u8>> {
    match key.len() {
        16 => Some(cbc_with(&aes::Aes128::new_from_slice(key).ok()?, iv, clear)),
        32 => Some(cbc_with(&aes::Aes256::new_from_slice(key).ok()?, iv, clear)),
        _ => None,
    }
}

fn cbc_with<C: BlockCipherEncrypt<BlockSize = aes::cipher::consts::U16>>(
    cipher: &C,
    iv: &[u8; 16],
    clear: &[u8],
) -> Vec<u8> {
    let pad = 16 - clear.len() % 16;
    let mut data = clear.to_vec();
    data.resize(clear.len() + pad, pad as u8);
    let mut out = Vec::with_capacity(16 + data.len());
    out.extend_from_slice(iv);
    let mut prev = *iv;
    for chunk in data.chunks_exact(16) {
        let mut block = aes::Block::default();
        for (b, (x, p)) in block.iter_mut().zip(chunk.iter().zip(prev.iter())) {
            *b = x ^ p;
        }
        cipher.encrypt_block(&mut block);
        prev.copy_from_slice(&block);
        out.extend_from_slice(&block);
    }
    out
}
