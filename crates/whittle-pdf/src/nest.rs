//! The leaves of a PDF that hold documents of other formats ([`whittle_core::Nested`]), and how
//! an edited one is written back.
//!
//! JavaScript: a `/JS` string, or the data of a stream a `/JS` entry references. XML: the data
//! of each XFA stream (`/XFA` names one stream, or an array of packet names and streams) and of
//! every stream whose `/Subtype` is `/XML` (XMP metadata). Stream data is decoded by lopdf's
//! filters under a budget shared by all the streams of the document ([`budget`]: a multiple of
//! the file's size, within fixed bounds); a stream over it, or with a filter lopdf does not
//! decode, is given without content and stays an opaque leaf. An edited content is written
//! without filter, or with `/FlateDecode` where that is smaller.

use crate::layout::Place;
use crate::model::{Kind, PdfState};
use flate2::Compression;
use flate2::write::ZlibEncoder;
use lopdf::{Dictionary, Object, ObjectId, StringFormat};
use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use whittle_core::{Embedded, NodeId, Tree};

/// The most bytes all the nested streams of one document decode to together.
pub(crate) const NESTED_BUDGET: usize = 64 << 20;
/// The most bytes one nested stream decodes to.
pub(crate) const MAX_NESTED_DECODE: usize = 16 << 20;
/// All the nested streams of a document decode to at most this many times the file's size
/// (and at least [`NESTED_FLOOR`]): a script or XML packet is not a thousand times its file,
/// but a decompression bomb is, and decoding one up to [`MAX_NESTED_DECODE`] took seconds.
pub(crate) const NESTED_FACTOR: usize = 64;
/// The budget of a small file: see [`NESTED_FACTOR`].
pub(crate) const NESTED_FLOOR: usize = 256 << 10;

/// The most bytes all the nested streams of a file of `len` bytes decode to together:
/// [`NESTED_FACTOR`] times its size, at least [`NESTED_FLOOR`], at most [`NESTED_BUDGET`].
pub(crate) fn budget(len: usize) -> usize {
    len.saturating_mul(NESTED_FACTOR)
        .clamp(NESTED_FLOOR, NESTED_BUDGET)
}

/// What a stream or string holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    JavaScript,
    Xml,
}

impl Holds {
    fn format(self) -> &'static str {
        match self {
            Holds::JavaScript => "javascript",
            Holds::Xml => "xml",
        }
    }
}

/// The leaves holding JavaScript or XML, with their decoded contents.
pub(crate) fn embedded(tree: &Tree, state: &PdfState) -> Vec<Embedded> {
    let (js, xfa) = targets(tree, state);
    let total = budget(state.input.len());
    let mut budget = total;
    let mut out = Vec::new();
    for n in tree.nodes() {
        let node = state.node(n);
        // The object the leaf belongs to: its own if it is an object's value.
        let owner = owner_of(tree, state, n);
        match &node.kind {
            Kind::Scalar(Object::String(s, _))
                if node.key.as_deref() == Some(b"JS")
                    || (node.key.is_none()
                        && owner.is_some_and(|(id, v)| v == n && js.contains(&id))) =>
            {
                let what = match owner {
                    Some((id, _)) => format!("/JS string of {} {} obj", id.0, id.1),
                    None => "/JS string of the trailer".to_string(),
                };
                out.push(Embedded {
                    leaf: n,
                    format: Holds::JavaScript.format(),
                    what,
                    offset: offset(state, owner),
                    content: script(s.clone()),
                });
            }
            Kind::Data(_) => {
                let Some(stream) = tree.parent(n) else {
                    continue;
                };
                let Some((id, _)) = owner_of(tree, state, stream) else {
                    continue;
                };
                let holds = if js.contains(&id) {
                    Holds::JavaScript
                } else if xfa.contains_key(&id) || is_xml(tree, state, stream) {
                    Holds::Xml
                } else {
                    continue;
                };
                let what = match (holds, xfa.get(&id)) {
                    (Holds::JavaScript, _) => format!("/JS stream {} {} obj", id.0, id.1),
                    (Holds::Xml, Some(Some(packet))) => {
                        format!("XFA packet `{packet}` {} {} obj", id.0, id.1)
                    }
                    (Holds::Xml, Some(None)) => format!("XFA stream {} {} obj", id.0, id.1),
                    (Holds::Xml, None) => format!("XML stream {} {} obj", id.0, id.1),
                };
                let content = decode(state, id, total, &mut budget).and_then(|c| match holds {
                    Holds::JavaScript => script(c),
                    Holds::Xml => Ok(c),
                });
                out.push(Embedded {
                    leaf: n,
                    format: holds.format(),
                    what,
                    offset: offset(state, Some((id, stream))),
                    content,
                });
            }
            _ => {}
        }
    }
    out
}

/// The objects `/JS` entries reference, and the XFA streams with their packet names.
fn targets(
    tree: &Tree,
    state: &PdfState,
) -> (HashSet<ObjectId>, BTreeMap<ObjectId, Option<String>>) {
    let mut js = HashSet::new();
    let mut xfa = BTreeMap::new();
    for n in tree.nodes() {
        let node = state.node(n);
        match (node.key.as_deref(), &node.kind) {
            (Some(b"JS"), Kind::Ref { id, .. }) => {
                js.insert(*id);
            }
            (Some(b"XFA"), Kind::Ref { id, .. }) => match state.originals.get(id) {
                Some(Object::Stream(_)) => {
                    xfa.insert(*id, None);
                }
                Some(Object::Array(items)) => packets(items.iter(), &mut xfa),
                _ => {}
            },
            (Some(b"XFA"), Kind::Array) => {
                let items: Vec<Object> = (tree.children(n).iter())
                    .map(|&k| match &state.node(k).kind {
                        Kind::Ref { id, .. } => Object::Reference(*id),
                        Kind::Scalar(o) => o.clone(),
                        _ => Object::Null,
                    })
                    .collect();
                packets(items.iter(), &mut xfa);
            }
            _ => {}
        }
    }
    (js, xfa)
}

/// The streams of an XFA array (`[(name) ref (name) ref …]`), each with the name before it.
fn packets<'a>(
    items: impl Iterator<Item = &'a Object>,
    xfa: &mut BTreeMap<ObjectId, Option<String>>,
) {
    let mut name = None;
    for o in items {
        match o {
            Object::String(s, _) => name = Some(String::from_utf8_lossy(s).into_owned()),
            Object::Reference(id) => {
                xfa.insert(*id, name.take());
            }
            _ => {}
        }
    }
}

/// The object whose value holds node `n`: the nearest reference above it that owns its
/// object, with the object's value node.
fn owner_of(tree: &Tree, state: &PdfState, n: NodeId) -> Option<(ObjectId, NodeId)> {
    let mut child = n;
    for a in std::iter::successors(tree.parent(n), |&m| tree.parent(m)) {
        if let Kind::Ref { id, owner: true } = state.node(a).kind {
            return Some((id, child));
        }
        child = a;
    }
    None
}

/// Whether a stream node's `/Subtype` is `/XML`.
fn is_xml(tree: &Tree, state: &PdfState, stream: NodeId) -> bool {
    tree.children(stream).iter().any(|&k| {
        let node = state.node(k);
        node.key.as_deref() == Some(b"Subtype")
            && matches!(&node.kind, Kind::Scalar(Object::Name(s)) if s == b"XML")
    })
}

fn offset(state: &PdfState, owner: Option<(ObjectId, NodeId)>) -> usize {
    match owner.and_then(|(id, _)| state.layout.places.get(&id)) {
        Some(Place::Plain { span, .. }) => span.start,
        _ => 0,
    }
}

/// A script's text: UTF-16 (with its byte order mark) is not decoded, and stays opaque.
fn script(text: Vec<u8>) -> Result<Vec<u8>, String> {
    if text.starts_with(&[0xFE, 0xFF]) || text.starts_with(&[0xFF, 0xFE]) {
        return Err("UTF-16 text is not decoded for the JavaScript format".into());
    }
    Ok(text)
}

/// The decoded data of stream `id`, within what is left (`budget`) of the document's `total`.
fn decode(
    state: &PdfState,
    id: ObjectId,
    total: usize,
    budget: &mut usize,
) -> Result<Vec<u8>, String> {
    let Some(Object::Stream(s)) = state.originals.get(&id) else {
        return Err("not a stream".into());
    };
    let limit = MAX_NESTED_DECODE.min(*budget);
    // Which bound it is, for the diagnostic (made only when one is hit).
    let bound = || {
        if limit == MAX_NESTED_DECODE {
            "the most for one nested stream".to_string()
        } else {
            format!(
                "the most left for nested streams, of {} KiB for this file ({NESTED_FACTOR} \
                 times its size, at least {} KiB, at most {} MiB)",
                total >> 10,
                NESTED_FLOOR >> 10,
                NESTED_BUDGET >> 20
            )
        }
    };
    let over = || format!("decodes to more than {} KiB, {}", limit >> 10, bound());
    // lopdf decodes damaged Flate data leniently (what it can, or nothing); such a stream is
    // kept as it is, since a reader may see it otherwise.
    if s.filters()
        .is_ok_and(|f| f.first() == Some(&&b"FlateDecode"[..]))
    {
        let mut z = flate2::read::ZlibDecoder::new(s.content.as_slice()).take(limit as u64 + 1);
        std::io::copy(&mut z, &mut std::io::sink())
            .map_err(|e| format!("its filters do not decode: damaged Flate data ({e})"))?;
    }
    let data = if s.dict.has(b"Filter") {
        s.decompressed_content_with_limit(limit)
            .map_err(|e| match e {
                lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                    ..
                }) => format!("{} (a decompression bomb?)", over()),
                e => format!("its filters do not decode: {e}"),
            })?
    } else if s.content.len() > limit {
        return Err(format!("more than {} KiB, {}", limit >> 10, bound()));
    } else {
        s.content.clone()
    };
    *budget -= data.len();
    Ok(data)
}

/// A string holding an edited content: a literal string, the shorter syntax.
pub(crate) fn string(content: &[u8]) -> Object {
    Object::String(content.to_vec(), StringFormat::Literal)
}

/// Sets a stream's dictionary for an edited content and returns the data to store: without a
/// filter, or compressed by `/FlateDecode` where that is smaller.
pub(crate) fn encode(dict: &mut Dictionary, content: &[u8]) -> Vec<u8> {
    dict.remove(b"Filter");
    dict.remove(b"DecodeParms");
    dict.remove(b"DL");
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    let compressed = z.write_all(content).and_then(|()| z.finish());
    match compressed {
        // `/Filter/FlateDecode` takes 19 bytes of the dictionary.
        Ok(c) if c.len() + 19 < content.len() => {
            dict.set("Filter", Object::Name(b"FlateDecode".to_vec()));
            c
        }
        _ => content.to_vec(),
    }
}
