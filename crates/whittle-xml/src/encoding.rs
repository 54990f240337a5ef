//! Finding out how an XML document is encoded: a byte order mark, the `<\0?\0` pattern of
//! UTF-16 without a mark, or the `encoding` of the XML declaration.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};
use std::borrow::Cow;

/// How the bytes of a document are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An ASCII-compatible encoding: markup is found on the raw bytes, and the encoding is used
    /// only to decode names into labels and to decode the text for the gate.
    Bytes(&'static Encoding),
    /// UTF-16 (little or big endian): the document is decoded before it is scanned.
    Utf16(&'static Encoding),
}

/// What [`sniff`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sniffed {
    /// The encoding to read the document with.
    pub(crate) kind: Kind,
    /// Length of the byte order mark in the input (0 if none).
    pub(crate) bom: usize,
    /// The label of a declared encoding that `encoding_rs` does not know (or that it only knows
    /// as the "replacement" encoding), if any.
    pub(crate) unknown_label: Option<String>,
}

/// Detects the encoding of `bytes`: a byte order mark wins, then the UTF-16 pattern of a
/// document that starts with ASCII markup, then the declared encoding, then UTF-8.
pub(crate) fn sniff(bytes: &[u8]) -> Sniffed {
    let declared = declared_encoding(bytes);
    let known = declared.map(Encoding::for_label);
    // A label that encoding_rs does not know, or knows only as the "replacement" encoding, is
    // reported even when a byte order mark decides the encoding.
    let unknown_label = match known {
        Some(enc) if enc.is_none_or(|e| e == encoding_rs::REPLACEMENT) => {
            declared.map(|l| String::from_utf8_lossy(l).into_owned())
        }
        _ => None,
    };
    let with = |kind, bom| Sniffed {
        kind,
        bom,
        unknown_label: unknown_label.clone(),
    };
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return with(Kind::Bytes(UTF_8), 3);
    }
    if bytes.starts_with(&[0xFF, 0xFE]) {
        return with(Kind::Utf16(UTF_16LE), 2);
    }
    if bytes.starts_with(&[0xFE, 0xFF]) {
        return with(Kind::Utf16(UTF_16BE), 2);
    }
    if let Some(enc) = utf16_pattern(bytes) {
        return with(Kind::Utf16(enc), 0);
    }
    match known {
        // A document that declares UTF-16 but is not laid out as UTF-16 is read as the bytes it
        // is (parsers do the same: the declaration cannot be read at all in real UTF-16).
        Some(Some(enc))
            if enc != UTF_16LE && enc != UTF_16BE && enc != encoding_rs::REPLACEMENT =>
        {
            with(Kind::Bytes(enc), 0)
        }
        _ => with(Kind::Bytes(UTF_8), 0),
    }
}

/// UTF-16 without a byte order mark, recognized by its first code units being ASCII (the
/// `<\0?\0` of `<?xml` in little endian, `\0<\0?` in big endian).
fn utf16_pattern(bytes: &[u8]) -> Option<&'static Encoding> {
    let k = bytes.len().min(8) & !1;
    if k < 4 {
        return None;
    }
    let head = &bytes[..k];
    let units = || head.chunks_exact(2);
    if units().all(|u| u[0] != 0 && u[0] < 0x80 && u[1] == 0) {
        return Some(UTF_16LE);
    }
    if units().all(|u| u[0] == 0 && u[1] != 0 && u[1] < 0x80) {
        return Some(UTF_16BE);
    }
    None
}

/// The value of `encoding="…"` in an XML declaration at the very start of an ASCII-compatible
/// document (after a UTF-8 byte order mark, if any).
pub(crate) fn declared_encoding(bytes: &[u8]) -> Option<&[u8]> {
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(bytes);
    let rest = bytes.strip_prefix(b"<?xml")?;
    if !rest.first().is_some_and(|&c| is_ws(c)) {
        return None;
    }
    let end = find(rest, b"?>").unwrap_or(rest.len().min(1024));
    let decl = &rest[..end];
    let at = find(decl, b"encoding")?;
    let mut p = at + b"encoding".len();
    while decl.get(p).is_some_and(|&c| is_ws(c)) {
        p += 1;
    }
    if decl.get(p) != Some(&b'=') {
        return None;
    }
    p += 1;
    while decl.get(p).is_some_and(|&c| is_ws(c)) {
        p += 1;
    }
    let quote = *decl.get(p).filter(|&&c| c == b'"' || c == b'\'')?;
    let value = &decl[p + 1..];
    let len = value.iter().position(|&c| c == quote)?;
    Some(&value[..len])
}

/// Decodes `bytes` (without its byte order mark) strictly: `None` if some bytes are not valid
/// in the encoding.
pub(crate) fn decode(kind: Kind, bytes: &[u8]) -> Option<Cow<'_, str>> {
    let enc = match kind {
        Kind::Bytes(enc) | Kind::Utf16(enc) => enc,
    };
    enc.decode_without_bom_handling_and_without_replacement(bytes)
}

/// Decodes a name for use as a label; never fails (invalid bytes become U+FFFD).
pub(crate) fn label_text<'a>(enc: &'static Encoding, bytes: &'a [u8]) -> Cow<'a, str> {
    if bytes.is_ascii() {
        // ASCII reads the same in every ASCII-compatible encoding.
        return String::from_utf8_lossy(bytes);
    }
    enc.decode_without_bom_handling(bytes).0
}

/// Encodes UTF-8 text as UTF-16 in the given byte order (`encoding_rs` only decodes UTF-16).
pub(crate) fn encode_utf16(text: &str, big_endian: bool, out: &mut Vec<u8>) {
    out.reserve(text.len() * 2);
    for unit in text.encode_utf16() {
        out.extend_from_slice(&if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
}

/// The number of bytes that the first `utf8_len` bytes of the decoded text `text` took in the
/// original encoding; used to report positions of the gate in input bytes.
pub(crate) fn encoded_len(kind: Kind, text: &str, utf8_len: usize) -> usize {
    let mut cut = utf8_len.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = &text[..cut];
    match kind {
        Kind::Utf16(_) => prefix.encode_utf16().count() * 2,
        Kind::Bytes(enc) if enc == UTF_8 => cut,
        Kind::Bytes(enc) => enc.encode(prefix).0.len(),
    }
}

/// XML white space.
pub(crate) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// The first occurrence of `needle` in `hay`.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(k) = hay[from..].iter().position(|&c| c == first) {
        let at = from + k;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}
