//! The PDF format of whittle.
//!
//! [`Pdf`] loads a PDF with `lopdf` (leniently: damaged cross-references are rebuilt, files
//! encrypted with an empty user password are decrypted, object streams are decoded) and turns
//! the object graph into the shared tree, rooted at the trailer: dictionary keys label the edges,
//! arrays are ordered children, a stream is its dictionary's entries plus a `data` leaf, and an
//! indirect reference is a `ref` node; the first reference to an object in a breadth-first walk
//! owns it (the object hangs below it), later ones are leaves. See `docs/pdf.md`.
//!
//! Rendering an unedited document gives back the input; any edit writes a complete PDF whose
//! unchanged objects are copied as they were stored (an object stream whole when all its objects
//! are unchanged) and whose changed objects and cross-reference data (a classic table, or a
//! stream when an object stream is kept) are written afresh, with references to deleted objects
//! as `null` and without the objects the trailer no longer reaches. An encrypted input's
//! candidates keep its security handler ([`DecryptedPdf`] writes them decrypted). The templates add
//! `drop-unreachable` (rewrite the file), `inline-reference` and a PDF-aware
//! `substitute-by-child` to deletion. The validity gate reloads a candidate with lopdf and wants
//! a catalog with a page tree. `whittle tree` prints a triage outline: objects, actions, JavaScript,
//! embedded files.
//!
//! `Format::embedded` lists the strings and streams that hold JavaScript (`/JS`) or XML (XFA
//! packets, XMP metadata), decoded, for `whittle_core::Nested` (the `whittle` crate nests the
//! JavaScript and XML formats there); `Format::render_embedded` writes an edited one back.
//!
//! Nothing in a PDF is executed or interpreted beyond its object syntax; decoding is bounded
//! (object streams share a budget, nested streams another, scripts are decoded for display up to
//! 1 MiB).

mod crypt;
mod format;
mod layout;
mod lexicon;
mod load;
mod model;
mod nest;
mod outline;
mod render;
mod templates;
mod write;

pub use format::{DecryptedPdf, Pdf, rewrite};

#[cfg(test)]
mod tests;
