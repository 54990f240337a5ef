//! The validity gate: is a candidate a well-formed XML document?
//!
//! The bytes are decoded (byte order mark, UTF-16 pattern or declared encoding) and read with
//! `quick_xml::Reader` with its well-formedness checks on (end tag names, comments, references).
//! quick-xml is a pull parser that leaves some rules of the XML specification to its user, so
//! this module adds them: exactly one root element, nothing but white space, comments and
//! processing instructions outside it, the XML declaration only at the very start, one DOCTYPE
//! before the root, valid names, attribute values without `<` or a bare `&`, references that are
//! well formed (and, without a DOCTYPE, only the five predefined entities), and only characters
//! that XML allows.

use crate::dtd::{Dtd, check_decl, check_doctype, is_predefined};
use crate::encoding::{Kind, decode, encoded_len, is_ws, sniff};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use whittle_core::Diagnostic;

/// Checks that `bytes` is a well-formed XML document; on failure, the offset (in input bytes)
/// and the reason.
pub(crate) fn well_formed(bytes: &[u8]) -> Result<(), Diagnostic> {
    let sniffed = sniff(bytes);
    if let Some(label) = &sniffed.unknown_label {
        return Err(Diagnostic {
            offset: 0,
            message: format!("unsupported encoding `{label}`"),
        });
    }
    let body = &bytes[sniffed.bom..];
    let Some(text) = decode(sniffed.kind, body) else {
        let name = match sniffed.kind {
            Kind::Bytes(enc) | Kind::Utf16(enc) => enc.name(),
        };
        return Err(Diagnostic {
            offset: sniffed.bom,
            message: format!("bytes that are not valid {name}"),
        });
    };
    check_text(&text).map_err(|(at, message)| Diagnostic {
        offset: sniffed.bom + encoded_len(sniffed.kind, &text, at),
        message,
    })
}

/// The well-formedness check on decoded text; errors carry an offset into `text`.
fn check_text(text: &str) -> Result<(), (usize, String)> {
    check_chars(text)?;
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.enable_all_checks(true);
    config.allow_dangling_amp = false;
    config.allow_unmatched_ends = false;
    config.expand_empty_elements = false;
    config.trim_text(false);
    let mut depth = 0usize;
    let mut root_seen = false;
    let mut dtd: Option<Dtd> = None;
    loop {
        let at = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => return Err((reader.error_position() as usize, e.to_string())),
        };
        let fail = |message: &str| Err((at, message.to_string()));
        match event {
            Event::Decl(_) => {
                if at != 0 {
                    return fail("XML declaration not at the start of the document");
                }
                let end = reader.buffer_position() as usize;
                check_decl(text.get(at..end).unwrap_or_default()).map_err(|m| (at, m))?;
            }
            Event::PI(pi) => {
                if pi.target().eq_ignore_ascii_case("xml") {
                    return fail("processing instruction target `xml` is reserved");
                }
                if !is_name(pi.target()) {
                    return fail("processing instruction without a valid target");
                }
            }
            Event::DocType(body) => {
                if dtd.is_some() || root_seen {
                    return fail("DOCTYPE after the root element or repeated");
                }
                let keyword = text.get(at..at + 10).unwrap_or_default();
                if !keyword.starts_with("<!DOCTYPE") || !keyword[9..].bytes().all(is_ws) {
                    return fail("`<!DOCTYPE` must be upper case and followed by white space");
                }
                dtd = Some(check_doctype(&body).map_err(|m| (at, m))?);
            }
            Event::Start(_) | Event::Empty(_) if depth == 0 && root_seen => {
                return fail("a second root element");
            }
            Event::Start(start) => {
                check_start(&start, dtd.as_ref()).map_err(|m| (at, m))?;
                depth += 1;
                root_seen = true;
            }
            Event::Empty(start) => {
                check_start(&start, dtd.as_ref()).map_err(|m| (at, m))?;
                root_seen = true;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Text(t) => {
                if depth == 0 && !t.bytes().all(is_ws) {
                    return fail("text outside the root element");
                }
                if t.contains("]]>") {
                    return fail("`]]>` in text");
                }
            }
            Event::GeneralRef(r) => {
                if depth == 0 {
                    return fail("reference outside the root element");
                }
                check_ref(&r, dtd.as_ref()).map_err(|m| (at, m))?;
            }
            Event::CData(_) if depth == 0 => return fail("CDATA section outside the root element"),
            Event::CData(_) | Event::Comment(_) => {}
            Event::Eof => {
                if depth > 0 {
                    return fail("element not closed at the end of input");
                }
                if !root_seen {
                    return fail("no root element");
                }
                return Ok(());
            }
        }
    }
}

/// The name and attributes of a start tag.
fn check_start(start: &BytesStart<'_>, dtd: Option<&Dtd>) -> Result<(), String> {
    let name = start.name();
    if !is_name(name.as_ref()) {
        return Err(format!("invalid element name `{}`", name.as_ref()));
    }
    // quick-xml accepts `a="1"b="2"`; XML wants white space between attributes.
    let raw = start.attributes_raw().as_bytes();
    let mut p = 0;
    while let Some(k) = raw[p..].iter().position(|&c| c == b'"' || c == b'\'') {
        let open = p + k;
        let Some(len) = raw[open + 1..].iter().position(|&c| c == raw[open]) else {
            break;
        };
        p = open + len + 2;
        if raw.get(p).is_some_and(|&c| !is_ws(c) && c != b'/') {
            return Err("white space needed between attributes".to_string());
        }
    }
    for attr in start.attributes() {
        let attr = attr.map_err(|e| e.to_string())?;
        if !is_name(attr.key.as_ref()) {
            return Err(format!("invalid attribute name `{}`", attr.key.as_ref()));
        }
        check_value(&attr.value, dtd)
            .map_err(|m| format!("attribute `{}`: {m}", attr.key.as_ref()))?;
    }
    Ok(())
}

/// An attribute value: no `<`, and every `&` starts a reference.
fn check_value(value: &str, dtd: Option<&Dtd>) -> Result<(), String> {
    if value.contains('<') {
        return Err("`<` in an attribute value".to_string());
    }
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        rest = &rest[amp + 1..];
        let Some(semi) = rest.find(';') else {
            return Err("`&` that starts no reference".to_string());
        };
        check_ref(&rest[..semi], dtd)?;
        rest = &rest[semi + 1..];
    }
    Ok(())
}

/// The body of a reference (between `&` and `;`): well formed and, where the document says all
/// there is about entities, declared.
fn check_ref(body: &str, dtd: Option<&Dtd>) -> Result<(), String> {
    check_ref_syntax(body)?;
    if body.starts_with('#') || is_predefined(body) {
        return Ok(());
    }
    match dtd {
        Some(d) if !d.complete || d.entities.contains(body) => Ok(()),
        _ => Err(format!("undefined entity `&{body};`")),
    }
}

/// A reference body is a name or a character reference to a character XML allows.
pub(crate) fn check_ref_syntax(body: &str) -> Result<(), String> {
    if let Some(num) = body.strip_prefix('#') {
        let value = match num.strip_prefix('x') {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|c| c.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).ok()
            }
            None if !num.is_empty() && num.bytes().all(|c| c.is_ascii_digit()) => num.parse().ok(),
            _ => None,
        };
        return match value.and_then(char::from_u32) {
            Some(c) if is_xml_char(c) => Ok(()),
            _ => Err(format!("invalid character reference `&{body};`")),
        };
    }
    if !is_name(body) {
        return Err(format!("`&` that starts no reference (`&{body};`)"));
    }
    Ok(())
}

/// Only characters of the XML `Char` production.
fn check_chars(text: &str) -> Result<(), (usize, String)> {
    let bytes = text.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        let bad = (c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r'))
            || (c == 0xEF
                && bytes.get(i + 1) == Some(&0xBF)
                && matches!(bytes.get(i + 2), Some(0xBE | 0xBF)));
        if bad {
            return Err((i, "a character that XML does not allow".to_string()));
        }
    }
    Ok(())
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The XML `Name` production (XML 1.0, fifth edition).
pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(is_name_start) && chars.all(|c| is_name_start(c) || is_name_rest(c))
}

fn is_name_start(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}'
        | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}'
        | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}'
        | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

fn is_name_rest(c: char) -> bool {
    matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}
