//! Loading a PDF with lopdf, with bounds for hostile input, and the structural check that both
//! parsing and rendering apply: a catalog reached from `/Root` with a page tree.

use lopdf::{Dictionary, LoadOptions, Object, ObjectId};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use whittle_core::{Diagnostic, ParseError};

/// Total budget, in bytes, for the object and cross-reference streams that lopdf decodes while
/// loading. It is shared among the object streams the file declares.
pub(crate) const DECODE_BUDGET: usize = 128 << 20;
/// The most any single stream may decode to while loading.
pub(crate) const MAX_STREAM_DECODE: usize = 64 << 20;
/// The least a stream may always decode to, however many object streams the file declares
/// (but see [`SIZE_FACTOR`]).
const MIN_STREAM_DECODE: usize = 4 << 20;
/// A stream decodes to at most this many times the file's size while loading (and to at least
/// [`SIZE_FLOOR`]): one Flate layer expands at most 1032 times, so a stream that decodes to more
/// is layered compression, a bomb. Without it, a 2.7 KiB bomb decoded 64 MiB on every load
/// (the `pdf` fuzzer: 180 ms per execution).
pub(crate) const SIZE_FACTOR: usize = 1024;
/// See [`SIZE_FACTOR`].
pub(crate) const SIZE_FLOOR: usize = 1 << 20;

/// A loaded document and what was recovered from while loading it.
pub(crate) struct Loaded {
    pub(crate) doc: lopdf::Document,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Whether the file was encrypted (with an empty user password) and has been decrypted.
    pub(crate) decrypted: bool,
    /// Number of pages the structural check found.
    pub(crate) pages: usize,
    /// Whether the input passes the strict structural check (see [`check_structure`]).
    pub(crate) strict: bool,
}

/// The per-stream decoding limit for an input: the budget shared among the `/ObjStm` streams the
/// raw bytes declare (a stream dictionary is never compressed, so this counts them all), and at
/// most [`SIZE_FACTOR`] times the input's size.
pub(crate) fn stream_limit(input: &[u8]) -> usize {
    let declared = count(input, b"/ObjStm").max(1);
    let share = (DECODE_BUDGET / declared).clamp(MIN_STREAM_DECODE, MAX_STREAM_DECODE);
    share.min(input.len().saturating_mul(SIZE_FACTOR).max(SIZE_FLOOR))
}

fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

fn error(message: impl Into<String>) -> ParseError {
    ParseError {
        offset: 0,
        message: message.into(),
    }
}

/// lopdf's error with its causes, on one line.
fn describe(e: &lopdf::Error) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// Loads `input` with lopdf, leniently (damaged cross-references are rebuilt), decrypting files
/// whose user password is empty, and checks that the result is a document: a catalog and pages.
///
/// `decrypt` says whether candidates will be written decrypted (the diagnostic says which).
pub(crate) fn load(input: &[u8], decrypt: bool) -> Result<Loaded, ParseError> {
    let Some(header) = find(input, b"%PDF-") else {
        return Err(error("not a PDF: no `%PDF-` header"));
    };
    let mut diagnostics = Vec::new();
    if header > 0 {
        diagnostics.push(Diagnostic {
            offset: 0,
            message: format!("{header} bytes of junk before the `%PDF-` header"),
        });
    }
    let limit = stream_limit(input);
    let doc = take_gated(input).unwrap_or_else(|| lopdf_load(input)).map_err(|e| match e {
        lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => error(format!(
            "an object stream decompresses to more than {} KiB (a decompression bomb?); refusing to load it",
            limit >> 10
        )),
        lopdf::Error::InvalidPassword => {
            error("encrypted with a user password; only files whose user password is empty can be opened")
        }
        e => error(format!("lopdf cannot load it: {}", describe(&e))),
    })?;
    if doc.trailer.has(b"Encrypt") && doc.encryption_state.is_none() {
        return Err(error(
            "encrypted with a user password; only files whose user password is empty can be opened",
        ));
    }
    let decrypted = doc.encryption_state.is_some();
    if decrypted {
        diagnostics.push(Diagnostic {
            offset: 0,
            message: if decrypt {
                "encrypted with an empty user password: decrypted; reduced files are written unencrypted (--pdf-decrypt)"
            } else {
                "encrypted with an empty user password: reduced files are written with the same encryption"
            }
            .into(),
        });
    }
    match doc.xref_recovery {
        Some(lopdf::xref::XrefRecovery::OffsetCorrected) => diagnostics.push(Diagnostic {
            offset: 0,
            message: "a cross-reference offset was wrong; a section found nearby was used".into(),
        }),
        Some(lopdf::xref::XrefRecovery::Reconstructed) => diagnostics.push(Diagnostic {
            offset: 0,
            message: "the cross-reference data is damaged; rebuilt it by scanning for objects"
                .into(),
        }),
        _ => {}
    }
    let pages = check_structure(&doc.trailer, &doc.objects, false).map_err(error)?;
    let strict = check_structure(&doc.trailer, &doc.objects, true).is_ok();
    if pages == 0 {
        diagnostics.push(Diagnostic {
            offset: 0,
            message: "the page tree holds no page".into(),
        });
    }
    Ok(Loaded {
        doc,
        diagnostics,
        decrypted,
        pages,
        strict,
    })
}

/// lopdf's load of `input`, with the bound on object streams ([`stream_limit`]): what both the
/// gate and parsing do.
fn lopdf_load(input: &[u8]) -> lopdf::Result<lopdf::Document> {
    let options = LoadOptions {
        max_decompressed_size: Some(stream_limit(input)),
        ..LoadOptions::default()
    };
    lopdf::Document::load_mem_with_options(input, options)
}

/// The gated document: see [`gate`].
type Gated = Option<(Vec<u8>, lopdf::Result<lopdf::Document>)>;

thread_local! {
    /// What the last gate on this thread loaded, with its bytes, until a parse of the same
    /// bytes takes it or the next gate replaces it.
    static GATED: RefCell<Gated> = const { RefCell::new(None) };
}

/// The gate's check: `bytes` load and have a catalog with a page tree. The loaded document is
/// kept (one per thread) for a parse of the same bytes on the same thread, which takes it instead
/// of loading them again: the fuzz harness gates every rendering before it parses it. In a
/// reduction this rarely hits: at `-j 1` other candidates are gated between a winner's gate and
/// the commit that parses it, and at `-j N` the gate runs on a worker, the parse on the reducer's
/// thread. A load is most of a parse, and of an encrypted
/// file mostly the key derivation, which lopdf repeats on every load (for AES-256, revision 6,
/// about five runs of a hash of at least 64 rounds of SHA-2 and AES: milliseconds).
pub(crate) fn gate(bytes: &[u8]) -> bool {
    let loaded = lopdf_load(bytes);
    let pass = loaded
        .as_ref()
        .is_ok_and(|d| check_structure(&d.trailer, &d.objects, false).is_ok());
    GATED.with(|g| *g.borrow_mut() = Some((bytes.to_vec(), loaded)));
    pass
}

/// The gate's document of `input`, if the last gate on this thread loaded these bytes.
fn take_gated(input: &[u8]) -> Option<lopdf::Result<lopdf::Document>> {
    GATED.with(|g| {
        let mut g = g.borrow_mut();
        match g.take() {
            Some((bytes, loaded)) if bytes == input => Some(loaded),
            other => {
                *g = other;
                None
            }
        }
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Checks that the trailer's `/Root` is a catalog dictionary with a page tree (a `/Pages`
/// dictionary, possibly without any page); returns the number of pages. Iterative, and every
/// object is visited once, so cycles in the page tree are harmless.
///
/// `strict` also wants what the PDF rules ask of the page tree and what `qpdf --check` warns
/// about: the catalog, the page tree root and every kid are indirect objects, inner nodes are
/// typed `/Pages` and pages `/Page`. Renderings are checked strictly when the input passes the
/// strict check, so that reduction never makes a well-formed page tree ill-formed.
pub(crate) fn check_structure(
    trailer: &Dictionary,
    objects: &BTreeMap<ObjectId, Object>,
    strict: bool,
) -> Result<usize, String> {
    let resolve = |o| deref(objects, o);
    let root = trailer
        .get(b"Root")
        .map_err(|_| "the trailer has no /Root: there is no document catalog".to_string())?;
    let Some((root_id, Object::Dictionary(catalog))) = resolve(root) else {
        return Err("the trailer's /Root is not a catalog dictionary".into());
    };
    if strict && root_id.is_none() {
        return Err("the catalog is not an indirect object".into());
    }
    let pages = catalog
        .get(b"Pages")
        .map_err(|_| "the catalog has no /Pages: the document has no page tree".to_string())?;
    if !matches!(resolve(pages), Some((_, Object::Dictionary(_)))) {
        return Err("the catalog's /Pages is not a page tree dictionary".into());
    }
    // A page is a dictionary reached through a `/Kids` array that has no `/Kids` itself; the
    // root of the page tree must have `/Kids`.
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut stack = vec![(pages, false)];
    let mut count = 0usize;
    while let Some((o, via_kids)) = stack.pop() {
        // A reference to no object is `null` (and a rendering writes it so), which the strict
        // check rejects as a kid: the input must get the same verdict as its renderings.
        let Some((id, o)) = resolve(o) else {
            if strict {
                return Err("a kid of the page tree names no object".into());
            }
            continue;
        };
        if strict && id.is_none() {
            return Err("a node of the page tree is not an indirect object".into());
        }
        if let Some(id) = id
            && !seen.insert(id)
        {
            continue;
        }
        let dict = match o {
            Object::Dictionary(d) => d,
            _ if strict => return Err("a node of the page tree is not a dictionary".into()),
            _ => continue,
        };
        let typed = |t: &[u8]| matches!(dict.get(b"Type"), Ok(Object::Name(n)) if n == t);
        match dict.get(b"Kids").ok().and_then(&resolve) {
            Some((kid_id, Object::Array(kids))) => {
                if strict && !typed(b"Pages") {
                    return Err("an inner node of the page tree is not typed /Pages".into());
                }
                if let Some(kid_id) = kid_id
                    && !seen.insert(kid_id)
                {
                    continue;
                }
                stack.extend(kids.iter().rev().map(|k| (k, true)));
            }
            _ if via_kids => {
                if strict && !typed(b"Page") {
                    return Err("a page is not typed /Page".into());
                }
                count += 1;
            }
            _ if strict => return Err("the root of the page tree has no /Kids".into()),
            _ => {}
        }
    }
    Ok(count)
}

/// Follows references (at most 32 hops) to a value; with the id of the last object passed.
fn deref<'a>(
    objects: &'a BTreeMap<ObjectId, Object>,
    mut o: &'a Object,
) -> Option<(Option<ObjectId>, &'a Object)> {
    let mut id = None;
    for _ in 0..32 {
        let Object::Reference(r) = o else {
            return Some((id, o));
        };
        id = Some(*r);
        o = objects.get(r)?;
    }
    None
}
