//! The shared labeled ordered tree (GTR paper, Def. 3.1).
//!
//! Nodes live in one arena and are numbered in pre-order, so the subtree of node `n` is exactly
//! the id range `n .. n + size(n)`. Every node covers a contiguous byte span of the source it was
//! parsed from; the bytes of a node that lie between its children are its *render template*
//! (punctuation, keywords, tags), so rendering an unedited tree gives back the source exactly.

use rustc_hash::FxHashMap;
use std::fmt;
use std::ops::Range;

/// A node of a [`Tree`]. Ids are dense pre-order indices; the root is `NodeId(0)`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub const ROOT: NodeId = NodeId(0);

    /// The id as an index into per-node tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An interned node or edge label. Symbols are only meaningful for the tree that made them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Sym(pub u32);

#[derive(Clone, Debug)]
struct NodeData {
    label: Sym,
    edge: Sym,
    parent: u32,
    depth: u32,
    size: u32,
    start: u32,
    end: u32,
    kids_start: u32,
    kids_len: u32,
}

/// A labeled ordered tree over a source buffer.
#[derive(Clone)]
pub struct Tree {
    source: Vec<u8>,
    nodes: Vec<NodeData>,
    kids: Vec<NodeId>,
    names: Vec<Box<str>>,
    syms: FxHashMap<Box<str>, Sym>,
    height: u32,
}

impl fmt::Debug for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tree")
            .field("nodes", &self.nodes.len())
            .field("bytes", &self.source.len())
            .finish()
    }
}

impl Tree {
    /// The root node.
    pub fn root(&self) -> NodeId {
        NodeId::ROOT
    }

    /// Number of nodes (the paper's `size` of the whole tree).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// A tree always has its root, so it is never empty; provided for clippy's sake.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The bytes this tree was built over.
    pub fn source(&self) -> &[u8] {
        &self.source
    }

    /// The node's label.
    pub fn label(&self, n: NodeId) -> &str {
        self.name(self.nodes[n.index()].label)
    }

    /// The node's interned label.
    pub fn label_sym(&self, n: NodeId) -> Sym {
        self.nodes[n.index()].label
    }

    /// The label of the edge from the node's parent (empty for the root).
    pub fn edge(&self, n: NodeId) -> &str {
        self.name(self.nodes[n.index()].edge)
    }

    /// The interned label of the incoming edge.
    pub fn edge_sym(&self, n: NodeId) -> Sym {
        self.nodes[n.index()].edge
    }

    /// The text behind a symbol.
    pub fn name(&self, s: Sym) -> &str {
        &self.names[s.0 as usize]
    }

    /// The symbol of a label if this tree uses it.
    pub fn sym(&self, name: &str) -> Option<Sym> {
        self.syms.get(name).copied()
    }

    /// The parent, or `None` for the root.
    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        (n != NodeId::ROOT).then(|| NodeId(self.nodes[n.index()].parent))
    }

    /// The ordered children.
    pub fn children(&self, n: NodeId) -> &[NodeId] {
        let d = &self.nodes[n.index()];
        &self.kids[d.kids_start as usize..(d.kids_start + d.kids_len) as usize]
    }

    /// Number of nodes in the subtree rooted at `n`, `n` included.
    pub fn size(&self, n: NodeId) -> usize {
        self.nodes[n.index()].size as usize
    }

    /// Edge distance from the root (the paper's level of the node).
    pub fn depth(&self, n: NodeId) -> usize {
        self.nodes[n.index()].depth as usize
    }

    /// The largest depth of any node (the paper's `depth` of the tree).
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// Whether `d` lies in the subtree of `n` (`n` itself included).
    pub fn contains(&self, n: NodeId, d: NodeId) -> bool {
        d.0 >= n.0 && d.0 < n.0 + self.nodes[n.index()].size
    }

    /// The byte range of the source that the node covers.
    pub fn span(&self, n: NodeId) -> Range<usize> {
        let d = &self.nodes[n.index()];
        d.start as usize..d.end as usize
    }

    /// The source bytes of the node.
    pub fn text(&self, n: NodeId) -> &[u8] {
        &self.source[self.span(n)]
    }

    /// The paper's `context`: parent label and incoming edge label; `None` for the root.
    pub fn context(&self, n: NodeId) -> Option<(Sym, Sym)> {
        self.parent(n)
            .map(|p| (self.label_sym(p), self.edge_sym(n)))
    }

    /// All node ids in pre-order (document order).
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeId> + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The nodes of `n`'s subtree, `n` first, in pre-order (node ids are pre-order, so this is
    /// a range of them: taking it costs nothing, where skipping to `n` in [`Tree::nodes`] would
    /// walk every node before it).
    pub fn subtree(&self, n: NodeId) -> impl ExactSizeIterator<Item = NodeId> + use<> {
        (n.0..n.0 + self.size(n) as u32).map(NodeId)
    }

    /// The nodes of every level, in document order: `levels()[i]` is the paper's `level(t, i)`.
    pub fn levels(&self) -> Vec<Vec<NodeId>> {
        let mut levels = vec![Vec::new(); self.height() + 1];
        for n in self.nodes() {
            levels[self.depth(n)].push(n);
        }
        levels
    }

    /// The nodes of level `i` in document order.
    pub fn level(&self, i: usize) -> Vec<NodeId> {
        self.nodes().filter(|&n| self.depth(n) == i).collect()
    }

    /// The nodes in breadth-first order.
    pub fn bfs(&self) -> Vec<NodeId> {
        self.levels().into_iter().flatten().collect()
    }

    /// The leaves in document order.
    pub fn leaves(&self) -> Vec<NodeId> {
        self.nodes()
            .filter(|&n| self.children(n).is_empty())
            .collect()
    }

    /// A one-line-per-node outline: indentation, edge label, node label and, for leaves, the text.
    pub fn dump(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        for n in self.nodes() {
            let indent = "  ".repeat(self.depth(n));
            let edge = self.edge(n);
            let _ = write!(out, "{indent}");
            if !edge.is_empty() {
                let _ = write!(out, "{edge}: ");
            }
            let _ = write!(out, "{}", self.label(n));
            if self.children(n).is_empty() {
                let text = String::from_utf8_lossy(self.text(n));
                let mut shown: String = text.chars().take(60).collect();
                if text.chars().count() > 60 {
                    shown.push('…');
                }
                let _ = write!(out, " {shown:?}");
            }
            out.push('\n');
        }
        out
    }
}

/// An error in the structure a format handed to [`TreeBuilder`]: a bug in that format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A node starts before its previous sibling ends or ends after its parent.
    #[error("node `{label}` at bytes {start}..{end} is not nested inside its parent in order")]
    Overlap {
        /// The offending node's label.
        label: String,
        /// Its start offset.
        start: usize,
        /// Its end offset.
        end: usize,
    },
    /// `close` without `open`, or nodes still open at `finish`.
    #[error("unbalanced open/close calls")]
    Unbalanced,
    /// The tree would exceed the 4 GiB or 4-billion-node limits of the arena.
    #[error("input too large for the tree arena")]
    TooLarge,
}

/// Builds a [`Tree`] in document order: `open`/`close` for inner nodes, `leaf` for leaves.
///
/// The builder starts with an open root that covers the whole source, labeled as given to
/// [`TreeBuilder::new`].
#[derive(Debug)]
pub struct TreeBuilder {
    tree: Tree,
    stack: Vec<(u32, Vec<NodeId>)>,
    error: Option<BuildError>,
}

impl TreeBuilder {
    /// Starts a tree over `source` whose root has label `root_label`.
    pub fn new(source: Vec<u8>, root_label: &str) -> TreeBuilder {
        let mut tree = Tree {
            source,
            nodes: Vec::new(),
            kids: Vec::new(),
            names: Vec::new(),
            syms: FxHashMap::default(),
            height: 0,
        };
        let error = (tree.source.len() >= u32::MAX as usize).then_some(BuildError::TooLarge);
        let label = intern(&mut tree, root_label);
        let edge = intern(&mut tree, "");
        let end = tree.source.len().min(u32::MAX as usize) as u32;
        tree.nodes.push(NodeData {
            label,
            edge,
            parent: 0,
            depth: 0,
            size: 1,
            start: 0,
            end,
            kids_start: 0,
            kids_len: 0,
        });
        TreeBuilder {
            tree,
            stack: vec![(0, Vec::new())],
            error,
        }
    }

    /// The source the tree is built over.
    pub fn source(&self) -> &[u8] {
        &self.tree.source
    }

    /// Opens an inner node starting at byte `start`; its end is given to [`TreeBuilder::close`].
    pub fn open(&mut self, label: &str, edge: &str, start: usize) -> NodeId {
        let id = self.push(label, edge, start, start);
        self.stack.push((id.0, Vec::new()));
        id
    }

    /// Closes the innermost open node at byte `end`.
    pub fn close(&mut self, end: usize) {
        if self.stack.len() <= 1 {
            self.error.get_or_insert(BuildError::Unbalanced);
            return;
        }
        let Some((id, kids)) = self.stack.pop() else {
            return;
        };
        self.finish_node(id, kids, end);
    }

    /// Adds a leaf covering `start..end`.
    pub fn leaf(&mut self, label: &str, edge: &str, start: usize, end: usize) -> NodeId {
        self.push(label, edge, start, end)
    }

    /// Closes the root and returns the tree.
    pub fn finish(mut self) -> Result<Tree, BuildError> {
        if self.stack.len() != 1 {
            return Err(BuildError::Unbalanced);
        }
        let (_, kids) = self.stack.pop().unwrap_or_default();
        let end = self.tree.source.len();
        self.finish_node(0, kids, end);
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(self.tree)
    }

    fn push(&mut self, label: &str, edge: &str, start: usize, end: usize) -> NodeId {
        if self.tree.nodes.len() >= u32::MAX as usize - 1 {
            self.error.get_or_insert(BuildError::TooLarge);
        }
        let id = NodeId(self.tree.nodes.len() as u32);
        let label = intern(&mut self.tree, label);
        let edge = intern(&mut self.tree, edge);
        let Some((parent, siblings)) = self.stack.last_mut() else {
            self.error.get_or_insert(BuildError::Unbalanced);
            return id;
        };
        let parent_data = &self.tree.nodes[*parent as usize];
        let lower = siblings
            .last()
            .map_or(parent_data.start, |s| self.tree.nodes[s.index()].end);
        if start < lower as usize || end < start || end > self.tree.source.len() {
            self.error.get_or_insert_with(|| BuildError::Overlap {
                label: self.tree.names[label.0 as usize].to_string(),
                start,
                end,
            });
        }
        let depth = parent_data.depth + 1;
        self.tree.height = self.tree.height.max(depth);
        siblings.push(id);
        let parent = *parent;
        self.tree.nodes.push(NodeData {
            label,
            edge,
            parent,
            depth,
            size: 1,
            start: start as u32,
            end: end as u32,
            kids_start: 0,
            kids_len: 0,
        });
        id
    }

    fn finish_node(&mut self, id: u32, kids: Vec<NodeId>, end: usize) {
        let size = self.tree.nodes.len() as u32 - id;
        let last_end = kids.last().map(|k| self.tree.nodes[k.index()].end);
        let kids_start = self.tree.kids.len() as u32;
        let kids_len = kids.len() as u32;
        self.tree.kids.extend(kids);
        let node = &mut self.tree.nodes[id as usize];
        if end < node.start as usize
            || last_end.is_some_and(|e| e as usize > end)
            || end > self.tree.source.len()
        {
            let label = self.tree.names[node.label.0 as usize].to_string();
            let start = node.start as usize;
            self.error
                .get_or_insert(BuildError::Overlap { label, start, end });
        }
        node.end = end as u32;
        node.size = size;
        node.kids_start = kids_start;
        node.kids_len = kids_len;
    }
}

fn intern(tree: &mut Tree, name: &str) -> Sym {
    if let Some(&s) = tree.syms.get(name) {
        return s;
    }
    let s = Sym(tree.names.len() as u32);
    tree.names.push(name.into());
    tree.syms.insert(name.into(), s);
    s
}
