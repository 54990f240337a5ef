//! What a C or C++ declaration declares and where names are used, over tree-sitter's tree:
//! the declarations the list moves of `decls.rs` work on, the names each declares, every use of
//! a name (a name leaf that declares nothing, or a word of a macro body or an `ERROR` leaf), and
//! the declarations tree-sitter misread.

use std::collections::HashMap;
use std::ops::Range;
use whittle_core::{NodeId, Tree};

/// Node kinds whose leaves are names.
pub(crate) const NAME_KINDS: &[&str] = &[
    "identifier",
    "type_identifier",
    "field_identifier",
    "namespace_identifier",
];

/// Leaves whose text is not parsed into names but may name things (a macro's body, what the
/// grammar could not read): every word in them counts as a use.
pub(crate) const OPAQUE_KINDS: &[&str] = &["preproc_arg", "ERROR", "preproc_call"];

/// Words C and C++ reserve: a declaration that declares one, or whose type is one, is
/// tree-sitter's recovery from something it could not read (`do {…} while (0);` after an
/// attribute it does not know read as a function `do` and a prototype of `while`), and is not
/// listed.
pub(crate) const KEYWORDS: &[&[u8]] = &[
    b"auto",
    b"break",
    b"case",
    b"catch",
    b"class",
    b"const",
    b"continue",
    b"default",
    b"delete",
    b"do",
    b"else",
    b"enum",
    b"extern",
    b"for",
    b"friend",
    b"goto",
    b"if",
    b"inline",
    b"namespace",
    b"new",
    b"operator",
    b"private",
    b"protected",
    b"public",
    b"return",
    b"sizeof",
    b"static",
    b"struct",
    b"switch",
    b"template",
    b"this",
    b"throw",
    b"try",
    b"typedef",
    b"typename",
    b"union",
    b"using",
    b"virtual",
    b"void",
    b"volatile",
    b"while",
    b"true",
    b"false",
    b"typeof",
    b"__typeof",
    b"__typeof__",
    b"decltype",
    b"__attribute__",
    b"__attribute",
    b"__extension__",
    b"asm",
    b"__asm",
    b"__asm__",
    b"alignof",
    b"_Alignof",
    b"__alignof__",
    b"static_assert",
    b"_Static_assert",
    b"noexcept",
    b"constexpr",
    b"consteval",
    b"register",
    b"restrict",
    b"__restrict",
    b"_Generic",
];

/// Whether tree-sitter misread a declaration: a name leaf of its own parts (its type and
/// declarators, not a body) is a keyword, or they hold an `ERROR` (then where the declaration
/// ends is a guess: a method whose body begins with something the grammar does not read is a
/// declaration whose initializer is that error, and its statements are read as declarations
/// that follow it).
pub(crate) fn misread(tree: &Tree, n: NodeId) -> bool {
    tree.children(n)
        .iter()
        .filter(|&&c| tree.edge(c) != "body")
        .any(|&c| {
            tree.subtree(c).any(|m| {
                let label = tree.label(m);
                label == "ERROR"
                    || (NAME_KINDS.contains(&label) && KEYWORDS.contains(&tree.text(m)))
            })
        })
}

/// The uses of every name: each occurrence of a name leaf that is not the declared name of a
/// declaration, and each word of an opaque leaf, by text, with its offset and leaf.
pub(crate) struct Uses<'t> {
    by_name: HashMap<&'t [u8], Vec<(usize, NodeId)>>,
}

impl<'t> Uses<'t> {
    pub(crate) fn of(tree: &'t Tree) -> Uses<'t> {
        let mut declared = vec![false; tree.len()];
        for n in tree.nodes() {
            if is_declaration(tree, n) {
                for m in declared_names(tree, n) {
                    declared[m.index()] = true;
                }
            }
        }
        let mut by_name: HashMap<&[u8], Vec<(usize, NodeId)>> = HashMap::new();
        for n in tree.nodes() {
            let label = tree.label(n);
            if NAME_KINDS.contains(&label) && !declared[n.index()] {
                by_name
                    .entry(tree.text(n))
                    .or_default()
                    .push((tree.span(n).start, n));
            } else if OPAQUE_KINDS.contains(&label) && tree.children(n).is_empty() {
                let start = tree.span(n).start;
                for (offset, word) in words(tree.text(n)) {
                    by_name.entry(word).or_default().push((start + offset, n));
                }
            }
        }
        Uses { by_name }
    }

    /// Every name with its uses.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'t [u8], &[(usize, NodeId)])> {
        self.by_name
            .iter()
            .map(|(&name, uses)| (name, uses.as_slice()))
    }

    pub(crate) fn of_name(&self, name: &[u8]) -> &[(usize, NodeId)] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether `name` is used outside `span`.
    pub(crate) fn outside(&self, name: &[u8], span: &Range<usize>) -> bool {
        self.of_name(name).iter().any(|(at, _)| !span.contains(at))
    }
}

/// The identifier-like words of a text, with their offsets.
pub(crate) fn words(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < text.len() {
            if is_word(text[i]) && (i == 0 || !is_word(text[i - 1])) {
                let start = i;
                while i < text.len() && is_word(text[i]) {
                    i += 1;
                }
                if !text[start].is_ascii_digit() {
                    return Some((start, &text[start..i]));
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// Kinds of nodes that declare names (and are not tree-sitter's misreadings, [`misread`]).
pub(crate) fn is_declaration(tree: &Tree, n: NodeId) -> bool {
    is_declaration_node(tree, n) && !misread(tree, n)
}

pub(crate) fn is_declaration_node(tree: &Tree, n: NodeId) -> bool {
    match tree.label(n) {
        // Not a namespace: its name is used by every qualified name in it, and an inline or
        // anonymous one by none (its declarations are listed one by one instead).
        "function_definition"
        | "declaration"
        | "field_declaration"
        | "type_definition"
        | "enumerator"
        | "preproc_def"
        | "preproc_function_def"
        | "alias_declaration"
        | "template_declaration"
        | "concept_definition" => {
            // A template's declaration is the template's; a friend declaration grants access
            // to what is declared elsewhere.
            tree.parent(n).is_none_or(|p| {
                !matches!(tree.label(p), "template_declaration" | "friend_declaration")
            })
        }
        // `struct S {…};` on its own.
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            child(tree, n, "body").is_some() && tree.parent(n).is_some_and(|p| holds_items(tree, p))
        }
        _ => false,
    }
}

/// Nodes whose children are declarations: the file, a namespace's or linkage block's body, a
/// struct's field list.
pub(crate) fn holds_items(tree: &Tree, n: NodeId) -> bool {
    matches!(
        tree.label(n),
        "translation_unit"
            | "declaration_list"
            | "field_declaration_list"
            | "linkage_specification"
    )
}

/// Whether a declaration is at file scope (in the file, a namespace or an `extern "C"` block).
pub(crate) fn is_top_level(tree: &Tree, n: NodeId) -> bool {
    tree.parent(n).is_some_and(|p| {
        matches!(
            tree.label(p),
            "translation_unit" | "declaration_list" | "linkage_specification"
        )
    })
}

/// The name leaves a declaration declares: its declarators' names, the tag of a struct, union,
/// enum or class it defines, an enum's enumerators, a macro's, namespace's or alias's name; for
/// a template, those of what it declares.
pub(crate) fn declared_names(tree: &Tree, n: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    match tree.label(n) {
        "enumerator"
        | "preproc_def"
        | "preproc_function_def"
        | "namespace_definition"
        | "alias_declaration"
        | "concept_definition" => out.extend(child(tree, n, "name")),
        "template_declaration" => {
            for &c in tree.children(n) {
                if is_declaration_kind(tree.label(c)) {
                    out.extend(declared_names(tree, c));
                }
            }
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            specifier_names(tree, n, &mut out);
        }
        _ => {
            for &c in tree.children(n) {
                match tree.edge(c) {
                    "declarator" => out.extend(declarator_name(tree, c)),
                    "type" => specifier_names(tree, c, &mut out),
                    _ => {}
                }
            }
        }
    }
    out
}

pub(crate) fn is_declaration_kind(label: &str) -> bool {
    matches!(
        label,
        "function_definition"
            | "declaration"
            | "field_declaration"
            | "type_definition"
            | "alias_declaration"
            | "concept_definition"
            | "struct_specifier"
            | "union_specifier"
            | "enum_specifier"
            | "class_specifier"
    )
}

/// The tag of a struct, union, enum or class specifier that has a body (not a
/// specialization's), and an enum's enumerators.
pub(crate) fn specifier_names(tree: &Tree, n: NodeId, out: &mut Vec<NodeId>) {
    let label = tree.label(n);
    if !matches!(
        label,
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
    ) {
        return;
    }
    let Some(body) = child(tree, n, "body") else {
        return;
    };
    // A specialization (`struct hash<int> {…}`, `struct X<T *> {…}`) declares no name: it
    // uses its template's, whose primary declaration it needs ("`hash` is not a class
    // template" was, on the 1.1 MB libstdc++ file, half of the candidates the compiler
    // refused for an error rather than for the crash).
    out.extend(child(tree, n, "name").filter(|&m| tree.label(m) != "template_type"));
    if label == "enum_specifier" {
        for &e in tree.children(body) {
            if tree.label(e) == "enumerator" {
                out.extend(child(tree, e, "name"));
            }
        }
    }
}

/// The name a declarator declares: the end of its [`declarator_chain`], if that is a name;
/// `None` for an abstract one.
pub(crate) fn declarator_name(tree: &Tree, d: NodeId) -> Option<NodeId> {
    let last = declarator_chain(tree, d).last()?;
    DECLARED_NAMES.contains(&tree.label(last)).then_some(last)
}

/// The kinds a declarator ends in when it declares a name.
const DECLARED_NAMES: &[&str] = &[
    "identifier",
    "type_identifier",
    "field_identifier",
    "namespace_identifier",
    "operator_name",
    "operator_cast",
    "destructor_name",
];

/// A declarator and the declarators inside it, outside in: down `declarator` edges, or to the
/// one named child of a parenthesized, attributed or reference declarator; a qualified name
/// (`A::f`) or a template function's name (`f<int>`) ends in the name. At most 64 steps.
pub(crate) fn declarator_chain(tree: &Tree, d: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    std::iter::successors(Some(d), move |&d| match tree.label(d) {
        label if DECLARED_NAMES.contains(&label) => None,
        "qualified_identifier" | "template_function" => child(tree, d, "name"),
        _ => child(tree, d, "declarator").or_else(|| {
            tree.children(d)
                .iter()
                .copied()
                .find(|&c| !matches!(tree.label(c), "attribute_specifier" | "comment"))
        }),
    })
    .take(64)
}

/// The child of `n` on edge `edge`.
pub(crate) fn child(tree: &Tree, n: NodeId, edge: &str) -> Option<NodeId> {
    tree.children(n)
        .iter()
        .copied()
        .find(|&c| tree.edge(c) == edge)
}
