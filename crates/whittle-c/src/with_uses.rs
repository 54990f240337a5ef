//! The list move `decl-with-uses` (`docs/c.md`): a declaration deleted together with
//! everything that depends on it, as one candidate. Deleting a statement or declaration that
//! names it may delete declarations too (`struct S s = {};` goes with `struct S`); a name
//! declared only in what is deleted then loses its uses as well (every statement that names
//! `s`), and so on to a fixpoint. That is what dependency-aware reducers do with a compiler
//! front end (DRReduce); here names are matched by their text, and a name declared more than
//! once (a parameter `p` of several functions) is not followed, since which of its uses
//! belong to the deleted declaration is what a text match cannot tell.

use crate::decls::{ENTRY, deletion, deletion_span, is_data_member, used_implicitly};
use crate::names::{
    Uses, child, declarator_name, declared_names, is_declaration, is_declaration_node, is_top_level,
};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use whittle_core::{Document, NodeId, Splices, Tree};

/// For every declaration at file scope, and every local declaration whose names are declared
/// nowhere else, that something uses: the declaration with the units around its uses,
/// followed through the names declared only in what goes.
pub(crate) fn declarations_with_uses(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    let deps = Dependencies::of(tree);
    let mut out = Vec::new();
    for n in tree.nodes() {
        let local = tree
            .parent(n)
            .is_some_and(|p| tree.label(p) == "compound_statement");
        if !is_declaration(tree, n) || is_data_member(tree, n) || !(local || is_top_level(tree, n))
        {
            continue;
        }
        let leaves = declared_names(tree, n);
        let names: Vec<&[u8]> = leaves.iter().map(|&m| tree.text(m)).collect();
        if names.is_empty()
            || leaves.iter().any(|&m| used_implicitly(tree, m))
            || (local && names.iter().any(|m| deps.declarations(m) > 1))
        {
            continue;
        }
        if let Some(ranges) = deps.closure(n, &names)
            && ranges.len() > 1
        {
            out.push(deletion(&ranges));
        }
    }
    out
}

/// How many uses a declaration's candidate may visit. Following them costs time in the size of
/// what goes, for every declaration: on a large file (a 9 MB SQLite amalgamation) a typedef
/// that every function uses would take most of the file, and most of the file's declarations
/// with it. Such a candidate is the tree moves' to try (they delete the most first); the list
/// keeps those of a size a test can tell apart.
const WORK: usize = 2_000;

/// Where names are used and declared, read once per list.
struct Dependencies<'t> {
    tree: &'t Tree,
    uses: Uses<'t>,
    /// The spans of the declarations (and parameters) that declare each name.
    declared_at: HashMap<&'t [u8], Vec<Range<usize>>>,
    /// The declarations (and parameters), in pre-order, with the names each declares.
    declarations: Vec<(NodeId, Vec<&'t [u8]>)>,
}

impl<'t> Dependencies<'t> {
    fn of(tree: &'t Tree) -> Dependencies<'t> {
        let mut declared_at: HashMap<&[u8], Vec<Range<usize>>> = HashMap::new();
        let mut declarations = Vec::new();
        for n in tree.nodes() {
            let names: Vec<&[u8]> = if is_declaration(tree, n) {
                declared_names(tree, n)
                    .into_iter()
                    .map(|m| tree.text(m))
                    .collect()
            } else if tree.label(n) == "parameter_declaration" {
                child(tree, n, "declarator")
                    .and_then(|d| declarator_name(tree, d))
                    .map(|m| tree.text(m))
                    .into_iter()
                    .collect()
            } else {
                continue;
            };
            for &m in &names {
                declared_at.entry(m).or_default().push(tree.span(n));
            }
            declarations.push((n, names));
        }
        Dependencies {
            tree,
            uses: Uses::of(tree),
            declared_at,
            declarations,
        }
    }

    /// How many declarations declare `name`.
    fn declarations(&self, name: &[u8]) -> usize {
        self.declared_at.get(name).map_or(0, Vec::len)
    }

    /// The ranges to delete with declaration `n` (which declares `names`): its own, and the
    /// unit around every use of a name that goes, where a name goes when it is one of `names`
    /// or every declaration of it is deleted. `None` when a use has no unit smaller than the
    /// file, or when following the uses visits more than [`WORK`] of them.
    fn closure(&self, n: NodeId, names: &[&'t [u8]]) -> Option<Vec<Range<usize>>> {
        let tree = self.tree;
        let mut work = 0usize;
        let mut region = Region::default();
        let mut ranges = vec![deletion_span(tree, n)];
        region.add(ranges[0].clone());
        let mut pending: Vec<&[u8]> = names.to_vec();
        let mut followed: HashSet<&[u8]> = names.iter().copied().collect();
        // Names declared in what was deleted, to follow once all their declarations are gone.
        let mut waiting: Vec<&[u8]> = self.declared_within(ranges[0].clone());
        loop {
            while let Some(name) = pending.pop() {
                for &(at, leaf) in self.uses.of_name(name) {
                    work += 1;
                    if work > WORK {
                        return None;
                    }
                    if region.contains(at) {
                        continue;
                    }
                    let span = deletion_span(tree, unit_around(tree, leaf)?);
                    region.add(span.clone());
                    waiting.extend(self.declared_within(span.clone()));
                    ranges.push(span);
                }
            }
            waiting.retain(|m| !followed.contains(m));
            let (ready, rest): (Vec<&[u8]>, Vec<&[u8]>) = waiting.into_iter().partition(|m| {
                self.declared_at[m]
                    .iter()
                    .all(|s| region.contains(s.start) && region.contains(s.end - 1))
            });
            waiting = rest;
            if ready.is_empty() {
                return Some(ranges);
            }
            followed.extend(ready.iter().copied());
            pending = ready;
        }
    }

    /// The names declared by the declarations inside `span`.
    fn declared_within(&self, span: Range<usize>) -> Vec<&'t [u8]> {
        let first = self
            .declarations
            .partition_point(|&(d, _)| self.tree.span(d).start < span.start);
        self.declarations[first..]
            .iter()
            .take_while(|&&(d, _)| self.tree.span(d).start < span.end)
            .filter(|&&(d, _)| self.tree.span(d).end <= span.end)
            .flat_map(|(_, names)| names.iter().copied())
            .filter(|&m| m != ENTRY)
            .collect()
    }
}

/// A set of byte offsets: disjoint sorted ranges.
#[derive(Default)]
struct Region(Vec<Range<usize>>);

impl Region {
    fn contains(&self, at: usize) -> bool {
        let i = self.0.partition_point(|r| r.end <= at);
        self.0.get(i).is_some_and(|r| r.start <= at)
    }

    fn add(&mut self, range: Range<usize>) {
        let first = self.0.partition_point(|r| r.end < range.start);
        let last = self.0.partition_point(|r| r.start <= range.end);
        let merged = if first < last {
            self.0[first].start.min(range.start)..self.0[last - 1].end.max(range.end)
        } else {
            range
        };
        self.0.splice(first..last, [merged]);
    }
}

/// The smallest statement, declaration or other unit of a function or file around a name that
/// can go as a whole: `None` when only the file itself holds it. A struct, union, enum or
/// class specifier is a unit where it defines a type on its own (`struct S {…};`), not where
/// it is a type (`struct S *p`): there the unit is what declares with that type.
fn unit_around(tree: &Tree, leaf: NodeId) -> Option<NodeId> {
    let mut n = leaf;
    loop {
        let label = tree.label(n);
        let unit = (label.ends_with("_statement") && label != "compound_statement")
            || is_declaration_node(tree, n)
            || matches!(
                label,
                "declaration"
                    | "field_declaration"
                    | "function_definition"
                    | "type_definition"
                    | "alias_declaration"
                    | "enumerator"
                    | "template_declaration"
                    | "namespace_definition"
                    | "preproc_def"
                    | "preproc_function_def"
                    | "preproc_call"
                    | "preproc_include"
                    | "ERROR"
            );
        if unit && n != tree.root() {
            return Some(n);
        }
        n = tree.parent(n)?;
    }
}
