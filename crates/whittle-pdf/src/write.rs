//! Writing a candidate's objects as a PDF file, faithfully: an object whose value is the same as
//! in the input is copied as it was stored (its `N G obj … endobj` bytes, or the whole object
//! stream holding it when every object of that stream is unchanged); only changed objects and the
//! cross-reference data are written afresh. The cross-reference data is a classic table, or a
//! cross-reference stream when some object stays in an object stream.
//!
//! When the input was encrypted and the encryption is kept, copied objects are already encrypted
//! with their own key (numbers are kept), fresh ones are encrypted with the input's security
//! handler, and the trailer keeps the input's `/Encrypt` dictionary and `/ID`, so the key
//! derivation gives the same key.

use crate::layout::Place;
use crate::model::PdfState;
use lopdf::{Dictionary, Object, ObjectId, Stream};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// A candidate: its trailer (without layout keys) and its objects.
pub(crate) struct Candidate {
    pub(crate) trailer: Dictionary,
    pub(crate) objects: BTreeMap<ObjectId, Object>,
}

/// Where an object is written in the output.
#[derive(Clone, Copy)]
enum Entry {
    Plain { offset: usize, generation: u16 },
    Compressed { container: u32, index: usize },
}

/// Whether `a` (from the input) and `b` (rendered) are the same value; a stream's `/Length` is
/// not compared (the writer computes it).
fn same(a: &Object, b: &Object) -> bool {
    match (a, b) {
        (Object::Stream(a), Object::Stream(b)) => {
            let len = |d: &Dictionary| d.iter().filter(|(k, _)| k.as_slice() != b"Length").count();
            a.content == b.content
                && len(&a.dict) == len(&b.dict)
                && b.dict
                    .iter()
                    .filter(|(k, _)| k.as_slice() != b"Length")
                    .all(|(k, v)| a.dict.get(k).is_ok_and(|w| w == v))
        }
        _ => a == b,
    }
}

fn serialize(o: &Object) -> Vec<u8> {
    let mut v = Vec::new();
    let _ = lopdf::Writer::write_object(&mut v, o);
    v
}

/// Writes `N G obj`, the body and `endobj`.
fn indirect(out: &mut Vec<u8>, id: ObjectId, body: &[u8]) {
    let _ = writeln!(out, "{} {} obj", id.0, id.1);
    out.extend_from_slice(body);
    out.extend_from_slice(b"\nendobj\n");
}

/// Collects the objects of the output, then writes them in the order of their numbers: copied
/// and fresh ones alike, so that the output does not depend on which objects could be copied
/// (a rewrite of a rewrite, where every object is copied, is then the same bytes).
struct Writer<'a> {
    state: &'a PdfState,
    out: &'a mut Vec<u8>,
    /// Object number → where it is; the offsets of plain objects are set by [`Writer::flush`].
    entries: BTreeMap<u32, Entry>,
    /// The objects to write, by id.
    pieces: Vec<(ObjectId, Piece)>,
}

/// An object to write: its bytes in the input (`N G obj … endobj`), copied only when written,
/// or a fresh object's serialization.
enum Piece {
    Stored(std::ops::Range<usize>),
    Fresh(Vec<u8>),
}

impl Writer<'_> {
    fn place(&mut self, id: ObjectId, piece: Piece) {
        self.entries.insert(
            id.0,
            Entry::Plain {
                offset: 0,
                generation: id.1,
            },
        );
        self.pieces.push((id, piece));
    }

    /// An object copied as it was stored.
    fn raw(&mut self, id: ObjectId, span: std::ops::Range<usize>) {
        self.place(id, Piece::Stored(span));
    }

    /// A fresh object, encrypted when the encryption is kept.
    fn fresh(&mut self, id: ObjectId, mut obj: Object) {
        if let Some(crypt) = &self.state.crypt {
            crate::crypt::encrypt(&crypt.state, id, &mut obj);
        }
        self.plain(id, &obj);
    }

    /// A fresh object written as it is (never encrypted: the `/Encrypt` dictionary).
    fn plain(&mut self, id: ObjectId, obj: &Object) {
        let mut bytes = Vec::new();
        indirect(&mut bytes, id, &serialize(obj));
        // `indirect` ends with a line break, which `flush` adds.
        bytes.pop();
        self.place(id, Piece::Fresh(bytes));
    }

    /// Writes the objects, by number (stable: of two objects under one number, the later one
    /// is the one the cross-reference data names, as before).
    fn flush(&mut self) {
        let mut pieces = std::mem::take(&mut self.pieces);
        pieces.sort_by_key(|(id, _)| id.0);
        for (id, piece) in pieces {
            self.entries.insert(
                id.0,
                Entry::Plain {
                    offset: self.out.len(),
                    generation: id.1,
                },
            );
            match piece {
                Piece::Stored(span) => self.out.extend_from_slice(&self.state.input[span]),
                Piece::Fresh(bytes) => self.out.extend_from_slice(&bytes),
            }
            self.out.push(b'\n');
        }
    }
}

/// The body of a fresh object stream holding `members` with their bodies (not encrypted: the
/// stream is).
fn object_stream(members: &[(ObjectId, Object)], bodies: &[Vec<u8>]) -> Stream {
    let mut table = String::new();
    let mut at = 0usize;
    for ((id, _), body) in members.iter().zip(bodies) {
        table.push_str(&format!("{} {at} ", id.0));
        at += body.len() + 1;
    }
    let mut content = table.clone().into_bytes();
    for body in bodies {
        content.extend_from_slice(body);
        content.push(b' ');
    }
    let mut dict = Dictionary::new();
    dict.set("Type", Object::Name(b"ObjStm".to_vec()));
    dict.set("N", Object::Integer(members.len() as i64));
    dict.set("First", Object::Integer(table.len() as i64));
    let mut stream = Stream::new(dict, content);
    let _ = stream.compress();
    stream
}

/// The input's header: the `%PDF-x.y` line and, if the next line is a binary mark (a comment
/// holding bytes above 127, which tells programs the file is binary), that line too, as they were
/// written. Any other comment is dropped with the rest of what lies between objects.
pub(crate) fn header(input: &[u8], version: &str) -> Vec<u8> {
    let line_end = |from: usize| {
        let mut i = from;
        while i < input.len() && input[i] != b'\n' && input[i] != b'\r' {
            i += 1;
        }
        if input.get(i) == Some(&b'\r') {
            i += 1;
        }
        if input.get(i) == Some(&b'\n') {
            i += 1;
        }
        i
    };
    let Some(start) = input.windows(5).position(|w| w == b"%PDF-") else {
        return format!("%PDF-{version}\n").into_bytes();
    };
    let mut end = line_end(start);
    if input.get(end) == Some(&b'%') && input.get(end + 1) != Some(&b'%') {
        let mark = line_end(end);
        if input[end..mark].iter().any(|&b| b > 127) {
            end = mark;
        }
    }
    let mut h = input[start..end].to_vec();
    if !h.ends_with(b"\n") && !h.ends_with(b"\r") {
        h.push(b'\n');
    }
    h
}

/// Writes the candidate.
pub(crate) fn write(state: &PdfState, candidate: Candidate, out: &mut Vec<u8>) {
    let layout = &state.layout;
    // Copying is only right when the output has the input's encryption (or none).
    let copy = !state.decrypted || state.crypt.is_some();
    out.extend_from_slice(&state.header);
    let mut w = Writer {
        state,
        out,
        entries: BTreeMap::new(),
        pieces: Vec::new(),
    };
    let mut lengths: BTreeSet<ObjectId> = BTreeSet::new();
    // Per input object stream: the candidate's objects stored there, and whether all are unchanged.
    let mut groups: BTreeMap<u32, (Vec<(ObjectId, Object)>, bool)> = BTreeMap::new();
    let mut fresh: Vec<(ObjectId, Object)> = Vec::new();
    for (id, obj) in candidate.objects {
        let unchanged = copy && state.originals.get(&id).is_some_and(|o| same(o, &obj));
        match layout.places.get(&id) {
            Some(Place::Plain { span, length })
                if unchanged
                    && length.is_none_or(|l| {
                        matches!(layout.places.get(&l), Some(Place::Plain { .. }))
                    }) =>
            {
                if let Some(l) = length {
                    lengths.insert(*l);
                }
                w.raw(id, span.clone());
            }
            Some(Place::Member { container, .. })
                if id.1 == 0 && !matches!(obj, Object::Stream(_)) =>
            {
                let g = groups.entry(*container).or_insert((Vec::new(), true));
                g.1 &= unchanged;
                g.0.push((id, obj));
            }
            _ => fresh.push((id, obj)),
        }
    }
    for l in lengths {
        if !w.entries.contains_key(&l.0)
            && let Some(Place::Plain { span, .. }) = layout.places.get(&l)
        {
            w.raw(l, span.clone());
        }
    }
    for (container, (members, unchanged)) in groups {
        let cid = (container, 0);
        let intact = unchanged
            && layout.members.get(&container).is_some_and(|all| {
                all.iter()
                    .filter(|m| state.owned.contains(m))
                    .all(|m| members.iter().any(|(id, _)| id == m))
            })
            && !state
                .originals
                .get(&cid)
                .and_then(|c| c.as_stream().ok())
                .is_none_or(|c| c.dict.has(b"Extends"));
        if intact && let Some(Place::Plain { span, .. }) = layout.places.get(&cid) {
            w.raw(cid, span.clone());
            for (id, _) in &members {
                if let Some(&Place::Member { index, .. }) = layout.places.get(id) {
                    w.entries.insert(
                        id.0,
                        Entry::Compressed {
                            container,
                            index: usize::from(index),
                        },
                    );
                }
            }
            continue;
        }
        // Broken: its objects are written on their own, or in a fresh object stream under the
        // same number, whichever is smaller. In the fresh stream, unchanged objects keep their
        // stored bytes.
        let bodies: Vec<Vec<u8>> = members
            .iter()
            .map(|(id, o)| match layout.member_bytes(*id) {
                Some(b) if copy && state.originals.get(id).is_some_and(|orig| same(orig, o)) => {
                    b.to_vec()
                }
                _ => serialize(o),
            })
            .collect();
        let stream = object_stream(&members, &bodies);
        let plain: usize = members
            .iter()
            .map(|(id, o)| serialize(o).len() + format!("{} 0 obj\n\nendobj\n", id.0).len() + 20)
            .sum();
        if stream.content.len() + 60 < plain && !w.entries.contains_key(&container) {
            for (index, (id, _)) in members.iter().enumerate() {
                w.entries
                    .insert(id.0, Entry::Compressed { container, index });
            }
            w.fresh(cid, Object::Stream(stream));
        } else {
            fresh.extend(members);
        }
    }
    for (id, obj) in fresh {
        w.fresh(id, obj);
    }
    let mut trailer = Dictionary::new();
    if let Some(crypt) = &state.crypt {
        let id = crypt.encrypt_id;
        match layout.places.get(&id) {
            Some(Place::Plain { span, .. }) => w.raw(id, span.clone()),
            _ => {
                if let Ok(d) = crypt.state.encode() {
                    w.plain(id, &Object::Dictionary(d));
                }
            }
        }
    }
    for (k, v) in candidate.trailer.iter() {
        trailer.set(k.clone(), v.clone());
    }
    if let Some(crypt) = &state.crypt {
        trailer.set("Encrypt", Object::Reference(crypt.encrypt_id));
        if let Some(id) = &crypt.id {
            trailer.set("ID", id.clone());
        }
    }
    w.flush();
    let entries = std::mem::take(&mut w.entries);
    xref(w.out, entries, trailer);
}

/// Runs of consecutive object numbers: (first, count).
fn runs(numbers: impl Iterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for n in numbers {
        match runs.last_mut() {
            Some((first, count)) if *first + *count == n => *count += 1,
            _ => runs.push((n, 1)),
        }
    }
    runs
}

/// Writes the cross-reference data and the trailer: a table, or a stream when some object is in
/// an object stream.
fn xref(out: &mut Vec<u8>, mut entries: BTreeMap<u32, Entry>, trailer: Dictionary) {
    let compressed = entries
        .values()
        .any(|e| matches!(e, Entry::Compressed { .. }));
    let max = entries.keys().next_back().copied().unwrap_or(0);
    let start = out.len();
    if !compressed {
        let mut dict = Dictionary::new();
        dict.set("Size", Object::Integer(i64::from(max) + 1));
        for (k, v) in trailer.iter() {
            dict.set(k.clone(), v.clone());
        }
        out.extend_from_slice(b"xref\n");
        for (first, count) in runs(std::iter::once(0).chain(entries.keys().copied())) {
            let _ = writeln!(out, "{first} {count}");
            for n in first..first + count {
                match entries.get(&n) {
                    Some(Entry::Plain { offset, generation }) => {
                        let _ = writeln!(out, "{offset:010} {generation:05} n ");
                    }
                    _ => out.extend_from_slice(b"0000000000 65535 f \n"),
                }
            }
        }
        out.extend_from_slice(b"trailer\n");
        out.extend_from_slice(&serialize(&Object::Dictionary(dict)));
        let _ = write!(out, "\nstartxref\n{start}\n%%EOF\n");
        return;
    }
    // A cross-reference stream, which lists itself.
    let own = max + 1;
    entries.insert(
        own,
        Entry::Plain {
            offset: start,
            generation: 0,
        },
    );
    let widest = entries
        .values()
        .map(|e| match *e {
            Entry::Plain { offset, .. } => offset,
            Entry::Compressed { container, .. } => container as usize,
        })
        .max()
        .unwrap_or(0);
    let w2 = (1..=8).find(|&b| widest < 1usize << (8 * b)).unwrap_or(8);
    let mut data = Vec::new();
    let mut index = Vec::new();
    for (first, count) in runs(std::iter::once(0).chain(entries.keys().copied())) {
        index.extend([Object::Integer(first.into()), Object::Integer(count.into())]);
        for n in first..first + count {
            let (t, f2, f3) = match entries.get(&n) {
                Some(&Entry::Plain { offset, generation }) => {
                    (1u8, offset, usize::from(generation))
                }
                Some(&Entry::Compressed { container, index }) => (2, container as usize, index),
                None => (0, 0, 0xffff),
            };
            data.push(t);
            data.extend_from_slice(&f2.to_be_bytes()[8 - w2..]);
            data.extend_from_slice(&(f3.min(0xffff) as u16).to_be_bytes());
        }
    }
    let mut dict = Dictionary::new();
    dict.set("Type", Object::Name(b"XRef".to_vec()));
    dict.set("Size", Object::Integer(i64::from(own) + 1));
    dict.set("Index", Object::Array(index));
    dict.set(
        "W",
        Object::Array(vec![1.into(), (w2 as i64).into(), 2.into()]),
    );
    for (k, v) in trailer.iter() {
        dict.set(k.clone(), v.clone());
    }
    let mut stream = Stream::new(dict, data);
    let _ = stream.compress();
    indirect(out, (own, 0), &serialize(&Object::Stream(stream)));
    let _ = write!(out, "startxref\n{start}\n%%EOF\n");
}
