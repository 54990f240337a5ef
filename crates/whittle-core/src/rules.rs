//! Learned rules that specialize the templates to a format (GTR paper §4.2, Alg. 3).
//!
//! The file is versioned JSON:
//!
//! ```json
//! { "whittle_rules": 1, "format": "xml", "files": 3,
//!   "labels": { "item": { "count": 9, "mandatory_edges": ["@id"],
//!                         "contexts": [["list", "child"]] } } }
//! ```
//!
//! `mandatory_edges` of a label are the edge labels that every node of that label had in the
//! corpus; `contexts` are the (parent label, edge label) pairs the label was seen under, with
//! `["", ""]` for the root. Rules only constrain labels they know: a label absent from the file
//! is never filtered.

use crate::tree::{NodeId, Sym, Tree};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The current version of the rules file.
pub const RULES_VERSION: u32 = 1;

/// What the corpus says about one node label.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelRules {
    /// How many nodes with this label the corpus had.
    #[serde(default)]
    pub count: u64,
    /// Edge labels present on every node with this label.
    #[serde(default)]
    pub mandatory_edges: BTreeSet<String>,
    /// (parent label, edge label) pairs this label appeared under; `("", "")` is the root.
    #[serde(default)]
    pub contexts: BTreeSet<(String, String)>,
}

/// A rules file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// Format version; must be [`RULES_VERSION`].
    pub whittle_rules: u32,
    /// The format the rules were learned for.
    pub format: String,
    /// How many files the corpus had.
    #[serde(default)]
    pub files: u64,
    /// Rules per node label.
    pub labels: BTreeMap<String, LabelRules>,
}

/// A rules file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// Not valid JSON of the expected shape.
    #[error("not a whittle rules file: {0}")]
    Json(#[from] serde_json::Error),
    /// A version this build does not read.
    #[error("rules file version {found}, this whittle reads version {RULES_VERSION}")]
    Version {
        /// The version in the file.
        found: u32,
    },
}

impl Rules {
    /// Empty rules for a format.
    pub fn new(format: &str) -> Rules {
        Rules {
            whittle_rules: RULES_VERSION,
            format: format.to_string(),
            files: 0,
            labels: BTreeMap::new(),
        }
    }

    /// Reads a rules file.
    pub fn from_json(text: &str) -> Result<Rules, RulesError> {
        let rules: Rules = serde_json::from_str(text)?;
        if rules.whittle_rules != RULES_VERSION {
            return Err(RulesError::Version {
                found: rules.whittle_rules,
            });
        }
        Ok(rules)
    }

    /// Writes the rules as pretty JSON with a stable key order.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Adds the rules of a format nested in this one ([`crate::Nested`]), whose labels appear in
    /// the combined tree with `prefix` before them (`javascript:`): each label and each parent
    /// label of a context gets the prefix; edge labels and the root context stay as they are
    /// (an inner document's root is judged as a root, see
    /// [`CompiledRules::may_substitute_root`]).
    pub fn nest(&mut self, prefix: &str, inner: &Rules) {
        for (label, lr) in &inner.labels {
            let contexts = (lr.contexts.iter())
                .map(|(p, e)| {
                    let p = if p.is_empty() && e.is_empty() {
                        String::new()
                    } else {
                        format!("{prefix}{p}")
                    };
                    (p, e.clone())
                })
                .collect();
            let nested = LabelRules {
                count: lr.count,
                mandatory_edges: lr.mandatory_edges.clone(),
                contexts,
            };
            self.labels.insert(format!("{prefix}{label}"), nested);
        }
    }

    /// Resolves the rules against one tree's interned labels.
    pub fn compile(&self, tree: &Tree) -> CompiledRules {
        let mut labels = FxHashMap::default();
        for (name, lr) in &self.labels {
            let Some(sym) = tree.sym(name) else { continue };
            let mandatory = lr
                .mandatory_edges
                .iter()
                .filter_map(|e| tree.sym(e))
                .collect();
            let mut contexts = FxHashSet::default();
            let mut root_ok = false;
            for (p, e) in &lr.contexts {
                if p.is_empty() && e.is_empty() {
                    root_ok = true;
                } else if let (Some(p), Some(e)) = (tree.sym(p), tree.sym(e)) {
                    contexts.insert((p, e));
                }
            }
            labels.insert(
                sym,
                Compiled {
                    mandatory,
                    contexts,
                    root_ok,
                },
            );
        }
        CompiledRules {
            labels,
            splices: false,
        }
    }
}

#[derive(Debug)]
struct Compiled {
    mandatory: FxHashSet<Sym>,
    contexts: FxHashSet<(Sym, Sym)>,
    root_ok: bool,
}

/// Rules resolved against one tree, for O(1) checks.
#[derive(Debug)]
pub struct CompiledRules {
    labels: FxHashMap<Sym, Compiled>,
    /// Whether the format splices a substituted node's children into the place of the node it
    /// replaces ([`crate::Format::splices_lists`]).
    splices: bool,
}

impl CompiledRules {
    /// Says whether the format splices lists (see [`crate::Format::splices_lists`]); without,
    /// [`CompiledRules::may_substitute`] judges a node by its own label only.
    pub fn with_splices(mut self, splices: bool) -> CompiledRules {
        self.splices = splices;
        self
    }

    /// Alg. 3 of the GTR paper: may `n` be deleted? Not if its edge is mandatory for its
    /// parent's label and it is the parent's only child on that edge.
    pub fn may_delete(&self, tree: &Tree, n: NodeId) -> bool {
        let Some(p) = tree.parent(n) else { return true };
        let Some(rules) = self.labels.get(&tree.label_sym(p)) else {
            return true;
        };
        let edge = tree.edge_sym(n);
        if !rules.mandatory.contains(&edge) {
            return true;
        }
        tree.children(p)
            .iter()
            .any(|&s| s != n && tree.edge_sym(s) == edge)
    }

    /// [`CompiledRules::may_substitute`] for a node `d` taking the place of a root: of the tree,
    /// or of a document nested in it, whose root has a parent in the combined tree but is judged
    /// as its own format's root.
    pub fn may_substitute_root(&self, tree: &Tree, d: NodeId) -> bool {
        self.labels
            .get(&tree.label_sym(d))
            .is_none_or(|rules| rules.root_ok)
    }

    /// The specialized substitute-by-child check: may `d` take the place of `n`? If the corpus
    /// showed `d`'s label in `n`'s context (or does not know the label); or, for a format that
    /// splices lists (a Python block whose statements replace an `if`), if `d` has children and
    /// the corpus showed each of their labels there, since what lands in `n`'s context is then
    /// `d`'s children.
    pub fn may_substitute(&self, tree: &Tree, n: NodeId, d: NodeId) -> bool {
        // `Some(seen)` for labels the rules know, `None` for the others.
        let seen_in_context = |m: NodeId| {
            let rules = self.labels.get(&tree.label_sym(m))?;
            Some(match tree.context(n) {
                None => rules.root_ok,
                Some(ctx) => rules.contexts.contains(&ctx),
            })
        };
        match seen_in_context(d) {
            None | Some(true) => true,
            Some(false) if !self.splices => false,
            // Only children the rules know can vouch for a splice.
            Some(false) => {
                let kids = tree.children(d);
                !kids.is_empty() && kids.iter().all(|&k| seen_in_context(k) == Some(true))
            }
        }
    }
}
