//! The [`Format`] implementation: encoding detection, the scanner, the UTF-16 round trip and
//! the gate, put together.

use crate::encoding::{Kind, decode, encode_utf16, encoded_len, is_ws, sniff};
use crate::{gate, scan};
use encoding_rs::UTF_16BE;
use whittle_core::{
    Diagnostic, Document, Edits, Format, NodeId, ParseError, TreeBuilder, render_template,
};

/// The XML format.
#[derive(Clone, Copy, Debug, Default)]
pub struct Xml;

/// The state a UTF-16 document keeps in [`Document::extra`]: its tree is built over the UTF-8
/// decoding, and rendering encodes back in this byte order.
#[derive(Clone, Copy, Debug)]
struct Utf16 {
    big_endian: bool,
}

impl Xml {
    /// Checks that `bytes` is a well-formed XML document (what the gate does), and says where and
    /// why it is not.
    pub fn check(&self, bytes: &[u8]) -> Result<(), Diagnostic> {
        gate::well_formed(bytes)
    }
}

impl Format for Xml {
    fn name(&self) -> &'static str {
        "xml"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[
            "xml", "xsl", "xslt", "xsd", "svg", "xhtml", "xht", "rss", "atom", "rdf", "plist",
            "kml", "gpx", "wsdl", "xlf", "xliff", "dbk", "docbook", "xul", "glade", "xbel", "xspf",
            "ttml", "mathml", "mml", "smil",
        ]
    }

    fn description(&self) -> &'static str {
        "XML documents, one node per element, attribute, text run, comment and PI (quick-xml gate)"
    }

    /// The text nodes that are white space only (between markup: a pretty-printed document's
    /// line breaks and indentation).
    fn blanks(&self, doc: &Document) -> Vec<NodeId> {
        let tree = &doc.tree;
        (tree.nodes())
            .filter(|&n| tree.label(n) == scan::TEXT && tree.text(n).iter().all(|&b| is_ws(b)))
            .collect()
    }

    fn lexicon(&self, doc: &Document) -> Option<whittle_core::Lexicon> {
        Some(crate::lexicon::lexicon(doc))
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        if let Some(kind) = binary_kind(input) {
            let message = format!("not XML: this is {kind} (its signature, then NUL bytes)");
            return Err(ParseError { offset: 0, message });
        }
        let sniffed = sniff(input);
        let (tree, mut diagnostics, extra) = match sniffed.kind {
            Kind::Bytes(enc) => {
                let b = TreeBuilder::new(input.to_vec(), scan::DOCUMENT);
                let (b, diagnostics) = scan::scan(input, sniffed.bom, enc, b);
                (b.finish()?, diagnostics, None)
            }
            Kind::Utf16(enc) => {
                let big_endian = enc == UTF_16BE;
                // The byte order mark, if any, is decoded as U+FEFF and so is encoded back.
                let text = decode(sniffed.kind, input).map(|t| t.into_owned());
                let exact = text.as_ref().filter(|t| {
                    let mut back = Vec::new();
                    encode_utf16(t, big_endian, &mut back);
                    back == input
                });
                match exact {
                    Some(text) => {
                        let skip = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
                        let b = TreeBuilder::new(text.as_bytes().to_vec(), scan::DOCUMENT);
                        let (b, mut diagnostics) =
                            scan::scan(text.as_bytes(), skip, encoding_rs::UTF_8, b);
                        // The scanner counts in the UTF-8 text; diagnostics count input bytes.
                        for d in &mut diagnostics {
                            d.offset = encoded_len(sniffed.kind, text, d.offset);
                        }
                        let extra: Box<dyn std::any::Any + Send + Sync> =
                            Box::new(Utf16 { big_endian });
                        (b.finish()?, diagnostics, Some(extra))
                    }
                    None => {
                        // Bytes that do not decode as UTF-16 are kept as one opaque node.
                        let mut b = TreeBuilder::new(input.to_vec(), scan::DOCUMENT);
                        b.leaf(scan::ERROR, "error", 0, input.len());
                        let message = format!("not valid {}: kept as one opaque node", enc.name());
                        (b.finish()?, vec![Diagnostic { offset: 0, message }], None)
                    }
                }
            }
        };
        if let Err(d) = gate::well_formed(input) {
            diagnostics.push(Diagnostic {
                offset: d.offset,
                message: format!("not well-formed: {}", d.message),
            });
        }
        diagnostics.sort_by_key(|d| d.offset);
        Ok(Document {
            tree,
            diagnostics,
            extra,
        })
    }

    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        match doc.extra.as_ref().and_then(|e| e.downcast_ref::<Utf16>()) {
            Some(utf16) => {
                let mut utf8 = Vec::new();
                render_template(&doc.tree, edits, &mut utf8);
                encode_utf16(&String::from_utf8_lossy(&utf8), utf16.big_endian, out);
            }
            None => render_template(&doc.tree, edits, out),
        }
    }

    fn has_gate(&self) -> bool {
        true
    }

    /// Markup's own bytes: tags, references, attribute values, end tags.
    fn delimiters(&self) -> &'static [u8] {
        b"<>&;=\"'/"
    }

    fn gate(&self, bytes: &[u8]) -> bool {
        gate::well_formed(bytes).is_ok()
    }
}

/// Input that is clearly not XML: it starts with the signature of a binary format and has a NUL
/// byte in its first kilobyte. Everything else parses (as text, if need be).
///
/// The rule is deliberately narrow because the engine re-parses every candidate it accepts: a rule
/// such as "NUL bytes and no `<`" would reject the reduction `\0\0` of `<a>\0\0</a>`, which an
/// oracle looking for a crash on NUL bytes may well accept. A candidate only starts with one of
/// these signatures if its original held the signature and NUL bytes as text, which no XML
/// document does short of a deliberate polyglot.
pub(crate) fn binary_kind(input: &[u8]) -> Option<&'static str> {
    const SIGNATURES: [(&[u8], &str); 9] = [
        (b"\x7fELF", "an ELF executable"),
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"\x1f\x8b", "gzip data"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\xfd7zXZ\0", "xz data"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"\x28\xb5\x2f\xfd", "zstd data"),
        (b"bplist00", "a binary property list"),
    ];
    let (_, kind) = SIGNATURES
        .iter()
        .find(|(magic, _)| input.starts_with(magic))?;
    input.iter().take(1024).any(|&c| c == 0).then_some(*kind)
}
