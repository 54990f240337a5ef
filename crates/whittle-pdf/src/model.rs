//! The object graph as a tree rooted at the trailer.
//!
//! The trailer's keys are the root's children; a dictionary's entries are children on edges
//! labeled by their keys, an array's elements children on `item` edges, a stream is its
//! dictionary's entries plus a `data` leaf. An indirect reference is a `ref` node naming its
//! target; the first reference to an object met in a breadth-first walk from the trailer *owns*
//! the object, which hangs below it on an `obj` edge; every later reference stays a leaf. So every
//! reachable object is in the tree exactly once, as shallow as the graph allows, and cycles end at
//! a leaf.
//!
//! The tree is built over a synthetic, deterministic PDF-like text (one span per node); the real
//! values live in [`PdfState`], indexed by node id.

use crate::layout::Layout;
use crate::load::Loaded;
use lopdf::{Dictionary, EncryptionState, Object, ObjectId};
use std::collections::{BTreeMap, HashSet, VecDeque};
use whittle_core::{NodeId, ParseError, Tree, TreeBuilder};

/// Trailer keys that describe the file layout, not the document; the writer regenerates them.
const TRAILER_LAYOUT_KEYS: &[&[u8]] = &[
    b"Size",
    b"Prev",
    b"XRefStm",
    b"Encrypt",
    b"Type",
    b"W",
    b"Index",
    b"Length",
    b"Filter",
    b"DecodeParms",
    b"DL",
];

/// What a node of the tree stands for.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    /// The root: the trailer dictionary, without its layout keys.
    Trailer,
    /// A dictionary (not a stream's).
    Dict,
    /// An array.
    Array,
    /// A stream: its dictionary's entries (without `/Length`), then its data.
    Stream,
    /// A stream's data, exactly as stored (still encoded by its `/Filter`).
    Data(Vec<u8>),
    /// A number, name, string, boolean or null.
    Scalar(Object),
    /// An indirect reference; `owner` if the object hangs below this node.
    Ref { id: ObjectId, owner: bool },
}

/// A node's value and, for a dictionary entry, its key.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) key: Option<Vec<u8>>,
}

/// Everything rendering needs besides the tree: the input, the node values and the header.
#[derive(Debug)]
pub(crate) struct PdfState {
    /// The bytes that were parsed; an unedited document renders as exactly these.
    pub(crate) input: Vec<u8>,
    /// Per node id.
    pub(crate) nodes: Vec<Node>,
    /// The `%PDF-x.y` version.
    pub(crate) version: String,
    /// The input's header as written: the `%PDF-x.y` line and the binary mark's line.
    pub(crate) header: Vec<u8>,
    /// Whether the input was encrypted (and decrypted).
    pub(crate) decrypted: bool,
    /// The input's security handler, when candidates keep the input's encryption.
    pub(crate) crypt: Option<Crypt>,
    /// The input's objects as loaded (decrypted): an object of a candidate that is equal to its
    /// original is copied from the input.
    pub(crate) originals: BTreeMap<ObjectId, Object>,
    /// Where each object is stored in the input.
    pub(crate) layout: Layout,
    /// The objects that are in the tree (reachable from the trailer).
    pub(crate) owned: HashSet<ObjectId>,
    /// Number of pages.
    pub(crate) pages: usize,
    /// Whether renderings must pass the strict structural check, as the input does.
    pub(crate) strict: bool,
    /// Whether lopdf rebuilt or corrected the cross-reference data.
    pub(crate) xref_note: Option<&'static str>,
    /// References to objects that do not exist (read as null).
    pub(crate) dangling: usize,
}

/// The security handler of an encrypted input, kept for the candidates.
#[derive(Debug)]
pub(crate) struct Crypt {
    /// Algorithm, key, revision, permissions: what encrypts a fresh object.
    pub(crate) state: EncryptionState,
    /// The number of the `/Encrypt` dictionary, which is copied from the input.
    pub(crate) encrypt_id: ObjectId,
    /// The trailer's `/ID`, whose first string enters the key derivation.
    pub(crate) id: Option<Object>,
}

impl PdfState {
    pub(crate) fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.index()]
    }
}

/// The value a breadth-first node stands for, borrowed from the loaded document.
enum Val<'a> {
    Trailer(&'a Dictionary),
    Obj(&'a Object),
    Data(&'a [u8]),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    Root,
    Key,
    Item,
    Data,
    Obj,
}

struct Tmp<'a> {
    val: Val<'a>,
    edge: Edge,
    key: Option<&'a [u8]>,
    kids: Vec<u32>,
    owner: bool,
}

/// Whether an object is a container of the file layout (object or cross-reference stream),
/// which is not part of the document.
fn is_layout_container(o: &Object) -> bool {
    matches!(o, Object::Stream(s) if matches!(s.dict.get(b"Type"), Ok(Object::Name(t)) if t == b"ObjStm" || t == b"XRef"))
}

/// The name under `key` in a dictionary, as text.
fn name_of(d: &Dictionary, key: &[u8]) -> Option<String> {
    match d.get(key) {
        Ok(Object::Name(n)) if !n.is_empty() => Some(String::from_utf8_lossy(n).into_owned()),
        _ => None,
    }
}

/// The label of a dictionary: its `/Type`, else its `/S`, else `default`. An action's `/S`
/// (`JavaScript`, `Launch`) says more than its `/Type /Action`, so it wins there.
pub(crate) fn dict_label(d: &Dictionary, default: &str) -> String {
    match (name_of(d, b"Type"), name_of(d, b"S")) {
        (Some(t), Some(s)) if t == "Action" => s,
        (Some(t), _) => t,
        (None, Some(s)) => s,
        (None, None) => default.to_string(),
    }
}

/// One-line PDF syntax of a scalar (or of any object: lopdf's writer).
pub(crate) fn write_scalar(o: &Object, out: &mut Vec<u8>) {
    let _ = lopdf::Writer::write_object(out, o);
}

enum Ev {
    Open(String, String, usize),
    Leaf(String, String, usize, usize),
    Close(usize),
}

/// Builds the tree and the state from a loaded document.
///
/// `decrypt`: candidates of an encrypted input are written decrypted instead of with the input's
/// encryption.
pub(crate) fn build(
    input: &[u8],
    loaded: Loaded,
    decrypt: bool,
) -> Result<(Tree, PdfState), ParseError> {
    let doc = &loaded.doc;
    let objects = &doc.objects;
    // Breadth-first: nodes are created in BFS order, so the first reference to an object that is
    // expanded is the first in BFS order, and it owns the object.
    let mut tmp: Vec<Tmp<'_>> = vec![Tmp {
        val: Val::Trailer(&doc.trailer),
        edge: Edge::Root,
        key: None,
        kids: Vec::new(),
        owner: false,
    }];
    let mut owned: HashSet<ObjectId> = HashSet::new();
    let mut dangling = 0usize;
    let mut queue: VecDeque<u32> = VecDeque::from([0]);
    while let Some(i) = queue.pop_front() {
        let mut kids: Vec<Tmp<'_>> = Vec::new();
        let mut owner = false;
        match tmp[i as usize].val {
            Val::Trailer(d) => {
                // In a canonical order (Root, Info, ID, then as written): the order of a
                // trailer's keys is a matter of file layout, and an xref stream mixes them with
                // its own.
                let mut entries: Vec<_> = d
                    .iter()
                    .filter(|(k, _)| !TRAILER_LAYOUT_KEYS.contains(&k.as_slice()))
                    .collect();
                entries.sort_by_key(|(k, _)| {
                    [&b"Root"[..], b"Info", b"ID"]
                        .iter()
                        .position(|r| r == k)
                        .unwrap_or(3)
                });
                for (k, v) in entries {
                    kids.push(child(Val::Obj(v), Edge::Key, Some(k)));
                }
            }
            Val::Obj(Object::Dictionary(d)) => {
                for (k, v) in d.iter() {
                    kids.push(child(Val::Obj(v), Edge::Key, Some(k)));
                }
            }
            Val::Obj(Object::Array(a)) => {
                for v in a {
                    kids.push(child(Val::Obj(v), Edge::Item, None));
                }
            }
            Val::Obj(Object::Stream(s)) => {
                for (k, v) in s.dict.iter() {
                    if k.as_slice() != b"Length" {
                        kids.push(child(Val::Obj(v), Edge::Key, Some(k)));
                    }
                }
                kids.push(child(Val::Data(&s.content), Edge::Data, None));
            }
            Val::Obj(Object::Reference(id)) => match objects.get(id) {
                Some(target) if !is_layout_container(target) => {
                    if owned.insert(*id) {
                        owner = true;
                        kids.push(child(Val::Obj(target), Edge::Obj, None));
                    }
                }
                _ => dangling += 1,
            },
            Val::Obj(_) | Val::Data(_) => {}
        }
        let first = tmp.len() as u32;
        let n = kids.len() as u32;
        tmp.extend(kids);
        queue.extend(first..first + n);
        let t = &mut tmp[i as usize];
        t.kids = (first..first + n).collect();
        t.owner = owner;
    }

    // Depth-first, pre-order: the synthetic text and the builder events, then the tree.
    let mut text: Vec<u8> = Vec::new();
    let mut events: Vec<Ev> = Vec::with_capacity(tmp.len() * 2);
    let mut nodes: Vec<Node> = Vec::with_capacity(tmp.len());
    text.extend_from_slice(b"trailer<<");
    nodes.push(Node {
        kind: Kind::Trailer,
        key: None,
    });
    let mut stack: Vec<Task> = vec![Task::Text(b">>\n".to_vec())];
    push_kids(&tmp, 0, &mut stack);
    while let Some(task) = stack.pop() {
        let i = match task {
            Task::Text(t) => {
                text.extend_from_slice(&t);
                continue;
            }
            Task::Exit(t) => {
                text.extend_from_slice(t);
                events.push(Ev::Close(text.len()));
                continue;
            }
            Task::Enter(i) => i,
        };
        let t = &tmp[i as usize];
        let edge = match t.edge {
            Edge::Root => String::new(),
            Edge::Key => String::from_utf8_lossy(t.key.unwrap_or_default()).into_owned(),
            Edge::Item => "item".into(),
            Edge::Data => "data".into(),
            Edge::Obj => "obj".into(),
        };
        let key = t.key.map(<[u8]>::to_vec);
        let start = text.len();
        let (kind, label, open, close): (Kind, String, Vec<u8>, &'static [u8]) = match t.val {
            // Only the root holds the trailer, and it is never entered.
            Val::Trailer(_) => continue,
            Val::Data(d) => {
                text.extend_from_slice(format!("({} bytes)", d.len()).as_bytes());
                events.push(Ev::Leaf("data".into(), edge, start, text.len()));
                nodes.push(Node {
                    kind: Kind::Data(d.to_vec()),
                    key,
                });
                continue;
            }
            Val::Obj(Object::Dictionary(d)) => {
                (Kind::Dict, dict_label(d, "dict"), b"<<".to_vec(), b">>")
            }
            Val::Obj(Object::Array(_)) => (Kind::Array, "array".into(), b"[".to_vec(), b"]"),
            Val::Obj(Object::Stream(s)) => (
                Kind::Stream,
                name_of(&s.dict, b"Type").unwrap_or_else(|| "stream".into()),
                b"<<".to_vec(),
                b" endstream",
            ),
            Val::Obj(Object::Reference(id)) => {
                let kind = Kind::Ref {
                    id: *id,
                    owner: t.owner,
                };
                let r = format!("{} {} R", id.0, id.1);
                if !t.owner {
                    text.extend_from_slice(r.as_bytes());
                    events.push(Ev::Leaf("ref".into(), edge, start, text.len()));
                    nodes.push(Node { kind, key });
                    continue;
                }
                (kind, "ref".into(), format!("{r}=").into_bytes(), b"")
            }
            Val::Obj(o) => {
                write_scalar(o, &mut text);
                let label = match o {
                    Object::Null => "null",
                    Object::Boolean(_) => "bool",
                    Object::Integer(_) => "int",
                    Object::Real(_) => "real",
                    Object::Name(_) => "name",
                    _ => "string",
                };
                events.push(Ev::Leaf(label.into(), edge, start, text.len()));
                nodes.push(Node {
                    kind: Kind::Scalar(o.clone()),
                    key,
                });
                continue;
            }
        };
        events.push(Ev::Open(label, edge, start));
        text.extend_from_slice(&open);
        nodes.push(Node { kind, key });
        stack.push(Task::Exit(close));
        push_kids(&tmp, i, &mut stack);
    }
    drop(tmp);

    let mut b = TreeBuilder::new(text, "trailer");
    for ev in events {
        match ev {
            Ev::Open(label, edge, start) => {
                b.open(&label, &edge, start);
            }
            Ev::Leaf(label, edge, start, end) => {
                b.leaf(&label, &edge, start, end);
            }
            Ev::Close(end) => b.close(end),
        }
    }
    let tree = b.finish()?;
    debug_assert_eq!(tree.len(), nodes.len());
    let xref_note = match doc.xref_recovery {
        Some(lopdf::xref::XrefRecovery::Reconstructed) => Some("rebuilt by scanning"),
        Some(_) => Some("offsets corrected"),
        None => None,
    };
    let crypt = match &doc.encryption_state {
        Some(state) if !decrypt => Some(Crypt {
            state: state.clone(),
            encrypt_id: state.encrypt_object_id().ok_or_else(|| ParseError {
                offset: 0,
                message: "encrypted, but the /Encrypt dictionary is not an indirect object".into(),
            })?,
            id: doc.trailer.get(b"ID").ok().cloned(),
        }),
        _ => None,
    };
    let layout = Layout::read(
        input,
        &doc.reference_table.entries,
        &doc.objects,
        crate::load::stream_limit(input),
        doc.encryption_state.is_some(),
    );
    let version = doc.version.clone();
    let header = crate::write::header(input, &version);
    let state = PdfState {
        input: input.to_vec(),
        nodes,
        header,
        version,
        decrypted: loaded.decrypted,
        crypt,
        originals: loaded.doc.objects,
        layout,
        owned,
        pages: loaded.pages,
        strict: loaded.strict,
        xref_note,
        dangling,
    };
    Ok((tree, state))
}

fn child<'a>(val: Val<'a>, edge: Edge, key: Option<&'a Vec<u8>>) -> Tmp<'a> {
    Tmp {
        val,
        edge,
        key: key.map(Vec::as_slice),
        kids: Vec::new(),
        owner: false,
    }
}

enum Task {
    Enter(u32),
    Exit(&'static [u8]),
    Text(Vec<u8>),
}

/// Pushes the kids of `i` with the text before each (a key, a blank, `>>stream `), so that they
/// pop in order.
fn push_kids(tmp: &[Tmp<'_>], i: u32, stack: &mut Vec<Task>) {
    let kids = &tmp[i as usize].kids;
    for (pos, &k) in kids.iter().enumerate().rev() {
        stack.push(Task::Enter(k));
        let t = &tmp[k as usize];
        let sep = match t.edge {
            Edge::Key => {
                let mut s = Vec::new();
                write_scalar(&Object::Name(t.key.unwrap_or_default().to_vec()), &mut s);
                s.push(b' ');
                s
            }
            Edge::Item if pos > 0 => b" ".to_vec(),
            Edge::Data => b">>stream ".to_vec(),
            Edge::Item | Edge::Obj | Edge::Root => Vec::new(),
        };
        if !sep.is_empty() {
            stack.push(Task::Text(sep));
        }
    }
}
