//! The list moves over declarations (`docs/c.md`, "Declarations first"): what C-Reduce's and
//! C-Vise's first passes do, without a compiler front end. Names are matched by their text over
//! the whole file, which is what a reference count over tree-sitter's identifiers can know; a
//! candidate that is wrong about a name fails to compile, and the test rejects it.
//!
//! - `unused-decl`: every declaration whose names nothing outside it names (functions,
//!   variables, typedefs, struct, union, enum and class types, fields, enumerators, macros,
//!   namespaces, templates), outermost first.
//! - `body-to-decl`: a function definition becomes its prototype (`int f(int x) {…}` →
//!   `int f(int x);`; `main`'s body becomes `{}`), except where C++ needs the body wherever the function is used: a
//!   `constexpr` or `consteval` function (constant evaluation) and one whose return type is
//!   deduced (`auto`, `decltype(auto)`).
//! - `decl-with-uses`: a declaration deleted together with every statement or declaration that
//!   names it, one candidate per top-level declaration.

use std::collections::HashMap;
use std::ops::Range;
use whittle_core::{Document, ListMove, NodeId, Splices, Tree};

/// The declaration moves, in the order the default pipeline runs them.
pub(crate) const MOVES: [ListMove; 3] = [
    // Unused declarations first: a body made a prototype is a test wasted on a function that
    // nothing calls.
    ListMove {
        name: "unused-decl",
        changes: unused_declarations,
        after_tree: false,
    },
    ListMove {
        name: "body-to-decl",
        changes: bodies_to_prototypes,
        after_tree: false,
    },
    // After the tree moves: on a large file the list has an item per declaration, most of them
    // needed, and ddmin over it costs a few tests per item; once the tree moves have shrunk the
    // file it is short, and each item saves the tests of deleting its uses one by one.
    ListMove {
        name: "decl-with-uses",
        changes: declarations_with_uses,
        after_tree: true,
    },
];

/// Node kinds whose leaves are names.
const NAME_KINDS: &[&str] = &[
    "identifier",
    "type_identifier",
    "field_identifier",
    "namespace_identifier",
];

/// Leaves whose text is not parsed into names but may name things (a macro's body, what the
/// grammar could not read): every word in them counts as a use.
const OPAQUE_KINDS: &[&str] = &["preproc_arg", "ERROR", "preproc_call"];

/// The entry point is never deleted or emptied by these moves: the linker names it.
const ENTRY: &[u8] = b"main";

/// Every function definition with a body, its body (and a C++ constructor's member initializer
/// list before it) replaced by `;`.
fn bodies_to_prototypes(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    let instantiated = explicitly_instantiated(tree);
    let mut out = Vec::new();
    for n in tree.nodes() {
        if tree.label(n) != "function_definition" {
            continue;
        }
        let Some(body) = child(tree, n, "body") else {
            continue;
        };
        if tree.label(body) != "compound_statement" {
            continue;
        }
        if needs_its_body(tree, n)
            || misread(tree, n)
            || declared_names(tree, n)
                .iter()
                .any(|&m| instantiated.contains(&tree.text(m)))
        {
            continue;
        }
        let mut s = Splices::default();
        if declared_names(tree, n)
            .iter()
            .any(|&m| tree.text(m) == ENTRY)
        {
            // The entry point stays defined (a test may link and run the program), with an
            // empty body: for a compiler crash, everything it called becomes unused.
            if tree.text(body) != b"{}" {
                s.add(tree.span(body), b"{}");
                out.push(s);
            }
            continue;
        }
        if defines_a_member_out_of_class(tree, n) {
            // `void A::f() {…}` cannot become a prototype outside its class, where the class
            // declares it already: the definition goes (with its `template<…>`).
            s.add(deletion_span(tree, n), b"");
            out.push(s);
            continue;
        }
        let start = tree
            .children(n)
            .iter()
            .find(|&&c| tree.label(c) == "field_initializer_list")
            .map_or(tree.span(body).start, |&c| tree.span(c).start);
        s.add(start..tree.span(body).end, b";");
        out.push(s);
    }
    out
}

/// The names of the functions an explicit instantiation names (`template int f<int>(int);`):
/// their definitions must stay definitions.
fn explicitly_instantiated(tree: &Tree) -> Vec<&[u8]> {
    tree.nodes()
        .filter(|&n| tree.label(n) == "template_instantiation")
        .filter_map(|n| declarator_name(tree, child(tree, n, "declarator")?))
        .map(|m| tree.text(m))
        .collect()
}

/// Whether a function definition's declarator names a member of a class or namespace
/// (`A::f`), which is declared in it.
fn defines_a_member_out_of_class(tree: &Tree, n: NodeId) -> bool {
    let Some(d) = child(tree, n, "declarator") else {
        return false;
    };
    declarator_chain(tree, d).any(|d| tree.label(d) == "qualified_identifier")
}

/// Whether C++ needs a function's body wherever it is used: for constant evaluation
/// (`constexpr`, `consteval`) or to deduce its return type (`auto`, `decltype(auto)`).
fn needs_its_body(tree: &Tree, n: NodeId) -> bool {
    tree.children(n).iter().any(|&c| match tree.label(c) {
        "type_qualifier" | "storage_class_specifier" => {
            matches!(tree.text(c), b"constexpr" | b"consteval")
        }
        "placeholder_type_specifier" => true,
        _ => false,
    })
}

/// Every declaration that declares names, none of which is used outside it, deleted; a
/// declaration inside one already listed is not listed again.
fn unused_declarations(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    let uses = Uses::of(tree);
    let mut out = Vec::new();
    let mut skip_to = 0usize;
    for n in tree.nodes() {
        if n.index() < skip_to || !is_declaration(tree, n) || is_data_member(tree, n) {
            continue;
        }
        let names = declared_names(tree, n);
        if names.is_empty() || names.iter().any(|&m| used_implicitly(tree, m)) {
            continue;
        }
        let span = deletion_span(tree, n);
        if names.iter().all(|&m| !uses.outside(tree.text(m), &span)) {
            out.push(deletion(&[span]));
            skip_to = n.index() + tree.size(n);
        }
    }
    out
}

/// Whether a declaration is a struct's or class's data member: those stay, since an aggregate
/// initializer (`{0, 0, 1}`) fills the members by position, naming none of them.
fn is_data_member(tree: &Tree, n: NodeId) -> bool {
    tree.label(n) == "field_declaration"
        && !tree.children(n).iter().any(|&c| {
            tree.edge(c) == "declarator"
                && declarator_chain(tree, c).any(|d| tree.label(d) == "function_declarator")
        })
}

/// Whether a declared name is used where no identifier names it: the entry point (named by the
/// linker), C++ operators (`a == b` calls `operator==`), conversions and destructors.
fn used_implicitly(tree: &Tree, name: NodeId) -> bool {
    tree.text(name) == ENTRY
        || matches!(
            tree.label(name),
            "operator_name" | "operator_cast" | "destructor_name"
        )
}

/// For every top-level declaration that something uses: the declaration and the statement or
/// declaration around each use, deleted together.
fn declarations_with_uses(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    let uses = Uses::of(tree);
    let mut out = Vec::new();
    for n in tree.nodes() {
        if !is_declaration(tree, n) || !is_top_level(tree, n) {
            continue;
        }
        let names = declared_names(tree, n);
        if names.is_empty() || names.iter().any(|&m| used_implicitly(tree, m)) {
            continue;
        }
        let span = deletion_span(tree, n);
        let mut ranges = vec![span.clone()];
        let mut complete = true;
        for &m in &names {
            for &(at, leaf) in uses.of_name(tree.text(m)) {
                if span.contains(&at) {
                    continue;
                }
                match unit_around(tree, leaf) {
                    Some(u) => ranges.push(tree.span(u)),
                    None => complete = false,
                }
            }
        }
        if complete && ranges.len() > 1 {
            out.push(deletion(&ranges));
        }
    }
    out
}

/// What deleting a declaration deletes: the declaration, with the `extern "C"` before it where
/// that applies to it alone (`extern "C++" inline void f() {…}`).
fn deletion_span(tree: &Tree, n: NodeId) -> Range<usize> {
    if tree.label(n) == "enumerator" {
        // An enumerator takes its comma with it.
        return with_comma(tree.source(), tree.span(n));
    }
    match tree.parent(n) {
        Some(p) if tree.label(p) == "linkage_specification" && tree.edge(n) == "body" => {
            tree.span(p)
        }
        // A template's declaration goes with its `template<…>` (a member template of a class
        // template defined outside it has two).
        Some(p) if tree.label(p) == "template_declaration" => deletion_span(tree, p),
        _ => tree.span(n),
    }
}

/// `span` with the comma after it (and the blanks before that comma), or else the comma before
/// it: what a list element takes with it when it goes.
fn with_comma(src: &[u8], span: Range<usize>) -> Range<usize> {
    let after = span.end
        + src[span.end..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    if src.get(after) == Some(&b',') {
        return span.start..after + 1;
    }
    let before = src[..span.start]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    match span.start.checked_sub(before + 1) {
        Some(comma) if src[comma] == b',' => comma..span.end,
        _ => span,
    }
}

/// Words C and C++ reserve: a declaration that declares one, or whose type is one, is
/// tree-sitter's recovery from something it could not read (`do {…} while (0);` after an
/// attribute it does not know read as a function `do` and a prototype of `while`), and is not
/// listed.
const KEYWORDS: &[&[u8]] = &[
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
fn misread(tree: &Tree, n: NodeId) -> bool {
    tree.children(n)
        .iter()
        .filter(|&&c| tree.edge(c) != "body")
        .any(|&c| {
            tree.nodes().skip(c.index()).take(tree.size(c)).any(|m| {
                let label = tree.label(m);
                label == "ERROR"
                    || (NAME_KINDS.contains(&label) && KEYWORDS.contains(&tree.text(m)))
            })
        })
}

/// One candidate deleting every range (overlapping ranges merge).
fn deletion(ranges: &[Range<usize>]) -> Splices {
    let parts: Vec<Splices> = ranges
        .iter()
        .map(|r| {
            let mut s = Splices::default();
            s.add(r.clone(), b"");
            s
        })
        .collect();
    Splices::union(&parts)
}

/// The uses of every name: each occurrence of a name leaf that is not the declared name of a
/// declaration, and each word of an opaque leaf, by text, with its offset and leaf.
struct Uses<'t> {
    by_name: HashMap<&'t [u8], Vec<(usize, NodeId)>>,
}

impl<'t> Uses<'t> {
    fn of(tree: &'t Tree) -> Uses<'t> {
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

    fn of_name(&self, name: &[u8]) -> &[(usize, NodeId)] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether `name` is used outside `span`.
    fn outside(&self, name: &[u8], span: &Range<usize>) -> bool {
        self.of_name(name).iter().any(|(at, _)| !span.contains(at))
    }
}

/// The identifier-like words of a text, with their offsets.
fn words(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
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
fn is_declaration(tree: &Tree, n: NodeId) -> bool {
    is_declaration_node(tree, n) && !misread(tree, n)
}

fn is_declaration_node(tree: &Tree, n: NodeId) -> bool {
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
fn holds_items(tree: &Tree, n: NodeId) -> bool {
    matches!(
        tree.label(n),
        "translation_unit"
            | "declaration_list"
            | "field_declaration_list"
            | "linkage_specification"
    )
}

/// Whether a declaration is at file scope (in the file, a namespace or an `extern "C"` block).
fn is_top_level(tree: &Tree, n: NodeId) -> bool {
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
fn declared_names(tree: &Tree, n: NodeId) -> Vec<NodeId> {
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

fn is_declaration_kind(label: &str) -> bool {
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

/// The tag of a struct, union, enum or class specifier that has a body, and an enum's
/// enumerators.
fn specifier_names(tree: &Tree, n: NodeId, out: &mut Vec<NodeId>) {
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
    // A specialization (`struct hash<int> {…}`) is named by its template's name.
    out.extend(child(tree, n, "name").map(|m| match tree.label(m) {
        "template_type" => child(tree, m, "name").unwrap_or(m),
        _ => m,
    }));
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
fn declarator_name(tree: &Tree, d: NodeId) -> Option<NodeId> {
    let last = declarator_chain(tree, d).last()?;
    match tree.label(last) {
        "identifier"
        | "type_identifier"
        | "field_identifier"
        | "namespace_identifier"
        | "operator_name"
        | "operator_cast"
        | "destructor_name" => Some(last),
        _ => None,
    }
}

/// A declarator and the declarators inside it, outside in: down `declarator` edges, or to the
/// one named child of a parenthesized, attributed or reference declarator; a qualified name
/// (`A::f`) or a template function's name (`f<int>`) ends in the name. At most 64 steps.
fn declarator_chain(tree: &Tree, d: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    std::iter::successors(Some(d), move |&d| match tree.label(d) {
        "identifier"
        | "type_identifier"
        | "field_identifier"
        | "namespace_identifier"
        | "operator_name"
        | "operator_cast"
        | "destructor_name" => None,
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

/// The smallest statement, declaration or other unit of a function or file around a name that
/// can go as a whole: `None` when only the file itself holds it.
fn unit_around(tree: &Tree, leaf: NodeId) -> Option<NodeId> {
    let mut n = leaf;
    loop {
        let label = tree.label(n);
        let unit = (label.ends_with("_statement") && label != "compound_statement")
            || is_declaration_kind(label)
            || matches!(
                label,
                "enumerator"
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

/// The child of `n` on edge `edge`.
fn child(tree: &Tree, n: NodeId, edge: &str) -> Option<NodeId> {
    tree.children(n)
        .iter()
        .copied()
        .find(|&c| tree.edge(c) == edge)
}
