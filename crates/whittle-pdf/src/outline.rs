//! The triage view that `whittle tree` prints for a PDF: the objects with their types and where
//! they hang, the actions (with the JavaScript text), embedded files and XFA forms, and a summary
//! of what an analyst looks for.

use crate::model::{Kind, PdfState, write_scalar};
use crate::render::Builder;
use lopdf::{Object, ObjectId};
use std::collections::HashMap;
use std::fmt::Write;
use whittle_core::{Edits, NodeId, Tree};

/// The most decoded bytes of one script (or file name) shown.
const MAX_SHOWN: usize = 4000;
/// The most bytes a stream is decoded to for showing it.
const MAX_DECODE: usize = 1 << 20;
/// Path segments kept per node (deeper paths are shown with a leading `…`).
const MAX_SEGMENTS: usize = 10;

const ACTIONS: &[&str] = &[
    "JavaScript",
    "Launch",
    "URI",
    "SubmitForm",
    "ImportData",
    "GoToR",
    "GoToE",
    "GoTo",
    "Named",
    "ResetForm",
    "Hide",
    "Rendition",
    "Sound",
    "Movie",
    "RichMediaExecute",
    "SetOCGState",
    "Thread",
    "Trans",
    "GoTo3DView",
];

struct View<'a> {
    tree: &'a Tree,
    state: &'a PdfState,
    builder: Builder<'a>,
    /// Object id → the node of its value.
    values: HashMap<ObjectId, NodeId>,
}

impl View<'_> {
    fn kind(&self, n: NodeId) -> &Kind {
        &self.state.node(n).kind
    }

    /// The child of `n` under dictionary key `key`.
    fn entry(&self, n: NodeId, key: &[u8]) -> Option<NodeId> {
        self.tree
            .children(n)
            .iter()
            .copied()
            .find(|&k| self.state.node(k).key.as_deref() == Some(key))
    }

    /// Follows references to the value node.
    fn deref(&self, mut n: NodeId) -> Option<NodeId> {
        for _ in 0..32 {
            match self.kind(n) {
                Kind::Ref { id, .. } => n = *self.values.get(id)?,
                _ => return Some(n),
            }
        }
        None
    }

    fn name(&self, n: NodeId, key: &[u8]) -> Option<String> {
        let v = self.deref(self.entry(n, key)?)?;
        match self.kind(v) {
            Kind::Scalar(Object::Name(s)) => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        }
    }

    /// The text of a string or stream value (decoded, bounded).
    fn text(&self, n: NodeId) -> Option<String> {
        let v = self.deref(n)?;
        let bytes = match self.kind(v) {
            Kind::Scalar(Object::String(s, _)) => s.clone(),
            Kind::Stream => match self.builder.object(v) {
                Object::Stream(s) => {
                    if s.dict.has(b"Filter") {
                        match s.decompressed_content_with_limit(MAX_DECODE) {
                            Ok(d) => d,
                            Err(e) => return Some(format!("<cannot decode the stream: {e}>")),
                        }
                    } else {
                        s.content
                    }
                }
                _ => return None,
            },
            Kind::Dict => {
                // A file specification: its Unicode or plain file name.
                return self
                    .entry(v, b"UF")
                    .or_else(|| self.entry(v, b"F"))
                    .and_then(|f| self.text(f));
            }
            _ => return None,
        };
        Some(decode_text(&bytes))
    }

    /// One-line PDF syntax of a value, shortened.
    fn brief(&self, v: NodeId, max: usize) -> String {
        let o = self.builder.object(v);
        let mut out = Vec::new();
        match &o {
            Object::Stream(s) => {
                write_scalar(&Object::Dictionary(s.dict.clone()), &mut out);
                out.extend_from_slice(format!(" stream ({} bytes)", s.content.len()).as_bytes());
            }
            o => write_scalar(o, &mut out),
        }
        shorten(&String::from_utf8_lossy(&out), max)
    }
}

/// PDF text: UTF-16BE with a byte order mark, else bytes shown as UTF-8 where they are.
fn decode_text(b: &[u8]) -> String {
    if let Some(rest) = b.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    String::from_utf8_lossy(b).into_owned()
}

fn shorten(s: &str, max: usize) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut t: String = one_line.chars().take(max).collect();
    t.push('…');
    t
}

/// The path of every node from the trailer (`/Root/Pages/Kids[0]/AA/O`), keeping the last
/// [`MAX_SEGMENTS`] segments; computed top-down, so deep trees cost linear time.
fn paths(tree: &Tree) -> Vec<(usize, Vec<String>)> {
    let mut paths: Vec<(usize, Vec<String>)> = Vec::with_capacity(tree.len());
    for n in tree.nodes() {
        let Some(p) = tree.parent(n) else {
            paths.push((0, Vec::new()));
            continue;
        };
        let (count, segs) = &paths[p.index()];
        let seg = match tree.edge(n) {
            "obj" | "data" => None,
            "item" => {
                let i = tree.children(p).iter().position(|&k| k == n).unwrap_or(0);
                Some(format!("[{i}]"))
            }
            key => Some(format!("/{key}")),
        };
        let (mut count, mut segs) = (*count, segs.clone());
        if let Some(seg) = seg {
            count += 1;
            segs.push(seg);
            if segs.len() > MAX_SEGMENTS {
                segs.remove(0);
            }
        }
        paths.push((count, segs));
    }
    paths
}

fn show_path(p: &(usize, Vec<String>)) -> String {
    let mut s = String::new();
    if p.0 > p.1.len() {
        s.push('…');
    }
    for seg in &p.1 {
        s.push_str(seg);
    }
    if s.is_empty() {
        s.push_str("trailer");
    }
    s
}

fn indent_text(out: &mut String, text: &str) {
    let mut shown: String = text.chars().take(MAX_SHOWN).collect();
    let more = text.chars().count().saturating_sub(MAX_SHOWN);
    if more > 0 {
        let _ = write!(shown, " … ({more} more characters)");
    }
    for line in shown.lines() {
        let line = line.trim_end();
        if !line.is_empty() {
            let _ = writeln!(out, "      {line}");
        }
    }
}

/// The triage outline of a parsed PDF.
pub(crate) fn outline(tree: &Tree, state: &PdfState) -> String {
    let edits = Edits::new();
    let Some(builder) = Builder::new(tree, state, &edits, &[]) else {
        return tree.dump();
    };
    let mut values = HashMap::new();
    let mut owners: Vec<(ObjectId, NodeId, NodeId)> = Vec::new();
    for n in tree.nodes() {
        if let Kind::Ref { id, owner: true } = state.node(n).kind
            && let Some(&v) = tree.children(n).first()
        {
            values.insert(id, v);
            owners.push((id, n, v));
        }
    }
    let view = View {
        tree,
        state,
        builder,
        values,
    };
    let paths = paths(tree);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "%PDF-{} · {} page{} · {} objects · cross-reference: {} · {}",
        state.version,
        state.pages,
        if state.pages == 1 { "" } else { "s" },
        owners.len(),
        state.xref_note.unwrap_or("as written"),
        if state.decrypted {
            "encrypted with an empty user password (decrypted)"
        } else {
            "not encrypted"
        }
    );
    if state.dangling > 0 {
        let _ = writeln!(
            out,
            "{} references to missing objects (read as null)",
            state.dangling
        );
    }

    let _ = writeln!(out, "\n## objects (id, type, where it hangs, value)");
    for &(id, r, v) in &owners {
        let _ = writeln!(
            out,
            "{:>6} {} obj  {:<14} {:<40} {}",
            id.0,
            id.1,
            tree.label(v),
            show_path(&paths[r.index()]),
            view.brief(v, 100)
        );
    }

    let mut counts: Vec<(&str, usize)> = [
        "OpenAction",
        "AA",
        "JavaScript",
        "JS",
        "Launch",
        "URI",
        "SubmitForm",
        "EmbeddedFile",
        "XFA",
        "RichMedia",
    ]
    .iter()
    .map(|&k| (k, 0))
    .collect();
    let mut bump = |k: &str| {
        if let Some(c) = counts.iter_mut().find(|c| c.0 == k) {
            c.1 += 1;
        }
    };

    let mut actions = String::new();
    let mut files = String::new();
    for n in tree.nodes() {
        let edge = tree.edge(n);
        if matches!(edge, "OpenAction" | "AA" | "JS" | "XFA") {
            bump(edge);
        }
        if tree.label(n).starts_with("RichMedia") {
            bump("RichMedia");
        }
        let at = |n: NodeId| {
            let owner = tree.parent(n).filter(|&p| {
                tree.edge(n) == "obj" && matches!(state.node(p).kind, Kind::Ref { .. })
            });
            let place = owner.map_or(n, |p| p);
            let id = match owner.map(|p| &state.node(p).kind) {
                Some(Kind::Ref { id, .. }) => format!("  ({} {} obj)", id.0, id.1),
                _ => String::new(),
            };
            (show_path(&paths[place.index()]), id)
        };
        if edge == "XFA" {
            let (path, _) = at(n);
            let what = match view.deref(n).map(|v| (v, view.kind(v))) {
                Some((v, Kind::Array)) => format!("{} parts", tree.children(v).len() / 2),
                Some((v, Kind::Stream)) => match &view.builder.object(v) {
                    Object::Stream(s) => format!("a stream of {} bytes stored", s.content.len()),
                    _ => String::new(),
                },
                _ => "not an array or a stream".into(),
            };
            let _ = writeln!(files, "  {path}  XFA form: {what}");
        }
        if edge == "JavaScript"
            && let Some(names) = view.deref(n).and_then(|v| view.entry(v, b"Names"))
            && let Some(names) = view.deref(names)
        {
            // The document-level scripts (the /Names /JavaScript name tree): name, script pairs.
            let (path, _) = at(n);
            let pairs = tree.children(names);
            let _ = writeln!(
                actions,
                "  {path}  document-level JavaScript, {} name(s)",
                pairs.len().div_ceil(2)
            );
            for pair in pairs.chunks(2) {
                let name = view.text(pair[0]).unwrap_or_default();
                let script = pair
                    .get(1)
                    .and_then(|&s| match view.deref(s).map(|v| view.kind(v)) {
                        Some(Kind::Dict) => Some("(an action, listed below)".to_string()),
                        Some(_) => view.text(s),
                        None => Some("(missing)".to_string()),
                    });
                let _ = writeln!(actions, "    {name:?}");
                if let Some(script) = script {
                    indent_text(&mut actions, &script);
                }
            }
        }
        match view.kind(n) {
            Kind::Dict => {
                let s = view.name(n, b"S");
                let is_action = s.as_deref().is_some_and(|s| ACTIONS.contains(&s))
                    || view.entry(n, b"JS").is_some();
                if !is_action {
                    continue;
                }
                let s = s.unwrap_or_else(|| "JavaScript".into());
                bump(&s);
                let (path, id) = at(n);
                let _ = writeln!(actions, "  {path}  {s}{id}");
                let detail = match s.as_str() {
                    "JavaScript" => view.entry(n, b"JS").and_then(|j| view.text(j)),
                    "Launch" => view.entry(n, b"F").and_then(|f| view.text(f)).or_else(|| {
                        let win = view.deref(view.entry(n, b"Win")?)?;
                        let f = view.entry(win, b"F").and_then(|f| view.text(f));
                        let p = view.entry(win, b"P").and_then(|p| view.text(p));
                        Some(format!(
                            "{} {}",
                            f.unwrap_or_default(),
                            p.unwrap_or_default()
                        ))
                    }),
                    "URI" => view.entry(n, b"URI").and_then(|u| view.text(u)),
                    "Named" => view.name(n, b"N"),
                    _ => view.entry(n, b"F").and_then(|f| view.text(f)),
                };
                if let Some(d) = detail {
                    indent_text(&mut actions, &d);
                }
            }
            Kind::Stream if tree.label(n) == "EmbeddedFile" => {
                bump("EmbeddedFile");
                let (path, id) = at(n);
                let size = match &view.builder.object(n) {
                    Object::Stream(s) => s.content.len(),
                    _ => 0,
                };
                let subtype = view.name(n, b"Subtype").unwrap_or_default();
                // The file name is in the nearest file specification above.
                let mut name = None;
                let mut up = tree.parent(n);
                while let Some(p) = up {
                    if tree.label(p) == "Filespec" || view.entry(p, b"EF").is_some() {
                        name = view.text(p);
                        break;
                    }
                    up = tree.parent(p);
                    if tree.depth(n) - up.map_or(0, |u| tree.depth(u)) > 8 {
                        break;
                    }
                }
                let _ = writeln!(
                    files,
                    "  {path}  {:?} {subtype} {size} bytes stored{id}",
                    name.unwrap_or_default()
                );
            }
            _ => {}
        }
    }
    let _ = writeln!(out, "\n## actions (where, type, object; JavaScript text)");
    out.push_str(if actions.is_empty() {
        "  none\n"
    } else {
        &actions
    });
    let _ = writeln!(out, "\n## embedded files and XFA forms");
    out.push_str(if files.is_empty() { "  none\n" } else { &files });
    let _ = writeln!(out, "\n## summary");
    let summary: Vec<String> = counts.iter().map(|(k, c)| format!("{k} {c}")).collect();
    let _ = writeln!(out, "  {}", summary.join(" · "));
    out
}
