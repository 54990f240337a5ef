//! The XML format of whittle.
//!
//! [`Xml`] turns any bytes into the shared tree: elements labeled by their qualified name,
//! attributes, text, CDATA, comments, processing instructions, the XML declaration and the
//! DOCTYPE (with one node per declaration of its internal subset) on labeled edges (see `docs/xml.md` for the table). The tree keeps every byte, so
//! rendering an unedited tree gives back the input exactly, also for documents that are not well
//! formed, in any encoding: markup is found on the raw bytes of ASCII-compatible encodings, and
//! UTF-16 is decoded to UTF-8 and encoded back when rendering.
//!
//! The validity gate reads a candidate with `quick_xml` plus the rules quick-xml leaves to its
//! user (one root element, defined entities, valid names), so malformed candidates never reach the
//! oracle.

mod dtd;
mod encoding;
mod format;
mod gate;
mod lexicon;
mod scan;
mod subset;

pub use format::Xml;

#[cfg(test)]
mod tests;
