//! The gate's second count: the names a candidate uses that nothing in it declares. A
//! candidate that deletes the last declaration of a name it still uses (a field still read, a
//! type still named, a variable still assigned) fails to compile, and a compiler crash or
//! wrong-code test rejects it; on GCC's wrong-code test `pr108498` a third of the failed
//! candidates were such. Names are matched by their text over the whole file (a name declared
//! anywhere counts as declared everywhere), so the count errs on the side of letting a
//! candidate through. What needs no declaration is not counted: reserved names (builtins,
//! predefined macros, GCC's `_Float128`), keywords and C++'s casts that tree-sitter reads as
//! names, attribute names, what the grammar could not read, a struct, union, enum or class
//! named by its tag where an incomplete type is enough (`struct S *p`), and, in C, a function
//! called without a prototype (implicit declarations, which GCC 12 accepts).

use crate::names::{
    KEYWORDS, NAME_KINDS, OPAQUE_KINDS, child, declarator_chain, declarator_name, declared_names,
    holds_items, is_declaration_kind, words,
};
use std::collections::HashSet;
use whittle_core::{NodeId, Tree};

/// Where a name is looked up. C has three name spaces that matter here: the tags of structs,
/// unions and enums (`struct S`), the members of each (`p->m`, matched over all of them), and
/// the ordinary names (a typedef `S` is not the tag `S`). In C++ a class's name is a type name
/// and a member is named unqualified in its class's functions: one space.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Space {
    Tag,
    Member,
    Ordinary,
}

const SPACES: [Space; 3] = [Space::Tag, Space::Member, Space::Ordinary];

/// The space of name leaf `n` (`c`: C's spaces, or C++'s one).
fn space(tree: &Tree, n: NodeId, c: bool) -> Space {
    if !c {
        return Space::Ordinary;
    }
    let tag = tree.edge(n) == "name"
        && tree.parent(n).is_some_and(|p| {
            matches!(
                tree.label(p),
                "struct_specifier" | "union_specifier" | "enum_specifier"
            )
        });
    match tree.label(n) {
        _ if tag => Space::Tag,
        "field_identifier" => Space::Member,
        _ => Space::Ordinary,
    }
}

/// How many distinct names `tree` uses that it does not declare, but those that need no
/// declaration, plus the declarations C forbids that no grammar rejects
/// ([`constraint_violations`]); `c`: C's name spaces, and a called function needs no
/// declaration (C89's implicit declarations, which GCC 12 accepts).
pub(crate) fn undeclared(tree: &Tree, c: bool) -> usize {
    let declared = declared(tree, c);
    let mut missing: HashSet<(Space, &[u8])> = HashSet::new();
    let mut skip_to = 0;
    for n in tree.nodes() {
        if n.index() < skip_to {
            continue;
        }
        let label = tree.label(n);
        if matches!(
            label,
            "attribute_specifier"
                | "attribute_declaration"
                | "attribute"
                | "ms_declspec_modifier"
                // What tree-sitter could not read: its words count as declarations, not uses.
                | "ERROR"
        ) {
            skip_to = n.index() + tree.size(n);
            continue;
        }
        if !NAME_KINDS.contains(&label) || !tree.children(n).is_empty() {
            continue;
        }
        let name = (space(tree, n, c), tree.text(n));
        if (reserved(name.1) && !library_type(tree, n))
            || KEYWORDS.contains(&name.1)
            || OPERATORS.contains(&name.1)
            || declared.contains(&name)
            || (c && called(tree, n))
            || tag_of_incomplete_type(tree, n)
        {
            continue;
        }
        missing.insert(name);
    }
    missing.len() + constraint_violations(tree)
}

/// Every name some declaration, parameter or namespace declares, and every word of a macro's
/// body or line (which may declare anything).
fn declared(tree: &Tree, c: bool) -> HashSet<(Space, &[u8])> {
    let mut names = Vec::new();
    let mut words_anywhere = Vec::new();
    let mut add = |m: NodeId| names.push(m);
    for n in tree.nodes() {
        let label = tree.label(n);
        if is_declaration_kind(label)
            || matches!(
                label,
                "enumerator"
                    | "preproc_def"
                    | "preproc_function_def"
                    | "template_declaration"
                    | "namespace_definition"
            )
        {
            declared_names(tree, n).into_iter().for_each(&mut add);
        }
        if c {
            // GNU C's implicit `int`, which tree-sitter reads as a statement at file scope
            // (`*q;` declares `q`) or as a definition whose type is the function's name and
            // whose declarator is its parameters (`h(c) {…}`): the names in it are declared.
            for part in implicit_int(tree, n) {
                tree.subtree(part)
                    .filter(|&m| NAME_KINDS.contains(&tree.label(m)))
                    .for_each(&mut add);
            }
        }
        match label {
            // A declarator of its own outside a declaration: a parameter (also a template's),
            // a range-for's variable.
            "parameter_declaration" | "optional_parameter_declaration" | "for_range_loop" => {
                let name = child(tree, n, "declarator").and_then(|d| declarator_name(tree, d));
                name.into_iter().for_each(&mut add);
            }
            // A forward declaration (`struct S;`).
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
                if tree.parent(n).is_some_and(|p| forward_declaration(tree, p)) =>
            {
                child(tree, n, "name").into_iter().for_each(&mut add);
            }
            // `using std::swap;` declares `swap` where it stands.
            "using_declaration" => {
                let last = tree.subtree(n).filter(|&m| {
                    NAME_KINDS.contains(&tree.label(m)) && tree.children(m).is_empty()
                });
                last.last().into_iter().for_each(&mut add);
            }
            // A template's type parameter with a default, a namespace alias.
            "optional_type_parameter_declaration" | "namespace_alias_definition" => {
                child(tree, n, "name").into_iter().for_each(&mut add);
            }
            // A template's type parameter, a structured binding's names.
            "type_parameter_declaration"
            | "variadic_type_parameter_declaration"
            | "structured_binding_declarator" => {
                for &m in tree.children(n) {
                    if NAME_KINDS.contains(&tree.label(m)) {
                        add(m);
                    }
                }
            }
            // Not an `ERROR`'s: what the grammar could not read may declare a name, but if
            // the input has such a name, that name counts as undeclared in the input, whose
            // count the gate allows; a candidate that deletes the one declaration the grammar
            // did read of a name some `ERROR` also holds is then one over it (on libstdc++,
            // `__is_destructible_safe`'s specializations left without their template).
            _ if OPAQUE_KINDS.contains(&label)
                && label != "ERROR"
                && tree.children(n).is_empty() =>
            {
                words_anywhere.extend(words(tree.text(n)).map(|(_, w)| w));
            }
            _ => {}
        }
    }
    let mut out: HashSet<(Space, &[u8])> = names
        .into_iter()
        .map(|m| (space(tree, m, c), tree.text(m)))
        .collect();
    for w in words_anywhere {
        out.extend(SPACES.map(|s| (s, w)));
    }
    out
}

/// Whether a struct, union, enum or class specifier in `holder` (its parent) is a declaration
/// of the type alone (`struct S;`), which tree-sitter reads as a declaration without
/// declarators or, at file scope, as the specifier on its own.
fn forward_declaration(tree: &Tree, holder: NodeId) -> bool {
    holds_items(tree, holder)
        || matches!(
            tree.label(holder),
            "template_declaration" | "friend_declaration"
        )
        || (tree.label(holder) == "declaration"
            && !tree
                .children(holder)
                .iter()
                .any(|&c| tree.edge(c) == "declarator"))
}

/// C++'s operators that tree-sitter-cpp reads as names (`static_cast<int>(x)` as a call of
/// a template function).
const OPERATORS: &[&[u8]] = &[
    b"static_cast",
    b"dynamic_cast",
    b"const_cast",
    b"reinterpret_cast",
    b"typeid",
    b"nullptr",
];

/// Whether a name is reserved for the implementation (C11 7.1.3: two underscores, or one and
/// a capital): builtins (`__builtin_abort`), predefined macros (`__CHAR_BIT__`), GCC's types
/// (`_Float128`).
fn reserved(name: &[u8]) -> bool {
    match name {
        [b'_', b'_', ..] => true,
        [b'_', c, ..] => c.is_ascii_uppercase(),
        _ => false,
    }
}

/// Whether a reserved name is one a library declares rather than the compiler: a type or a
/// namespace (`__or_`, `_Never_valueless_alt`, `__gnu_cxx` in libstdc++, whose internal names
/// are all reserved), but not one of GCC's own types (`__builtin_va_list`, `__int128`,
/// `_Float128`, `__bf16`). A compiler's builtins that are functions or macros stay exempt:
/// no list of them is complete.
fn library_type(tree: &Tree, n: NodeId) -> bool {
    const GCC_TYPES: &[&[u8]] = &[
        b"__builtin",
        b"__int",
        b"__float",
        b"__bf16",
        b"__fp16",
        b"__ibm128",
        b"_Float",
        b"_Decimal",
        b"__m",
        b"__v",
        b"__gnuc_va_list",
    ];
    matches!(tree.label(n), "type_identifier" | "namespace_identifier")
        && !GCC_TYPES.iter().any(|p| tree.text(n).starts_with(p))
}

/// The parts of `n` that declare names in GNU C's implicit `int` as tree-sitter reads it: a
/// statement at file scope (C has none), or the type and declarator of a function definition
/// whose declarator is no function's.
fn implicit_int(tree: &Tree, n: NodeId) -> Vec<NodeId> {
    match tree.label(n) {
        "expression_statement" if tree.parent(n) == Some(tree.root()) => vec![n],
        "function_definition" => {
            let declarator = child(tree, n, "declarator");
            let is_function = declarator.is_some_and(|d| {
                declarator_chain(tree, d).any(|m| tree.label(m) == "function_declarator")
            });
            if is_function {
                return Vec::new();
            }
            child(tree, n, "type")
                .into_iter()
                .chain(declarator)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Whether name leaf `n` is the function of a call (`f(x)`).
fn called(tree: &Tree, n: NodeId) -> bool {
    tree.parent(n)
        .is_some_and(|p| tree.label(p) == "call_expression" && tree.edge(n) == "function")
}

/// Whether name leaf `n` is the tag of a struct, union, enum or class specifier without a
/// body where an incomplete type is enough: in a typedef, in a declaration whose declarators
/// are all pointers or functions (or that has none: `struct S;`), or in a parameter.
fn tag_of_incomplete_type(tree: &Tree, n: NodeId) -> bool {
    let Some(spec) = tree.parent(n) else {
        return false;
    };
    if !matches!(
        tree.label(spec),
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
    ) || child(tree, spec, "body").is_some()
    {
        return false;
    }
    let Some(holder) = tree.parent(spec) else {
        return true;
    };
    if forward_declaration(tree, holder) {
        return true;
    }
    match tree.label(holder) {
        "type_definition" | "parameter_declaration" => true,
        "declaration" | "field_declaration" | "type_descriptor" => {
            let declarators: Vec<NodeId> = tree
                .children(holder)
                .iter()
                .copied()
                .filter(|&c| tree.edge(c) == "declarator")
                .collect();
            if declarators.is_empty() {
                // `sizeof (struct S)` needs it whole.
                return false;
            }
            declarators.iter().all(|&d| {
                tree.subtree(d).any(|m| {
                    matches!(
                        tree.label(m),
                        "pointer_declarator"
                            | "abstract_pointer_declarator"
                            | "function_declarator"
                    )
                })
            })
        }
        _ => false,
    }
}

/// Declarations C (and GNU C++) forbid and the grammar reads: a named bit-field of width 0
/// (`int a:0;`), a flexible array member (`char c[];`) that is not the last member or is the
/// only named one, and in C++ a `constexpr` function that returns a value without a `return`.
fn constraint_violations(tree: &Tree) -> usize {
    let mut n = 0;
    for list in tree.nodes() {
        n += usize::from(constexpr_without_return(tree, list));
        if tree.label(list) != "field_declaration_list" {
            continue;
        }
        let fields: Vec<NodeId> = tree
            .children(list)
            .iter()
            .copied()
            .filter(|&f| tree.label(f) == "field_declaration")
            .collect();
        for (i, &f) in fields.iter().enumerate() {
            let declarators = || {
                tree.children(f)
                    .iter()
                    .copied()
                    .filter(|&d| tree.edge(d) == "declarator")
            };
            let zero_width = tree.children(f).iter().any(|&b| {
                tree.label(b) == "bitfield_clause"
                    && tree.children(b).iter().any(|&w| tree.text(w) == b"0")
            });
            let flexible = declarators()
                .any(|d| tree.label(d) == "array_declarator" && child(tree, d, "size").is_none());
            n += usize::from(zero_width && declarators().next().is_some());
            n += usize::from(flexible && (i + 1 < fields.len() || fields.len() == 1));
        }
    }
    n
}

/// Whether `n` is a C++ `constexpr` function definition whose return type is not `void` and
/// whose body has no `return` (g++: "no return statement in `constexpr` function returning
/// non-void", an error where elsewhere it is a warning): what deleting a statement that named
/// something deleted leaves. A deduced return type (`auto`) counts as not `void`.
fn constexpr_without_return(tree: &Tree, n: NodeId) -> bool {
    if tree.label(n) != "function_definition" {
        return false;
    }
    let constexpr = tree.children(n).iter().any(|&c| {
        matches!(tree.label(c), "type_qualifier" | "storage_class_specifier")
            && tree.text(c) == b"constexpr"
    });
    let returns_void = child(tree, n, "type").is_some_and(|t| tree.text(t) == b"void");
    let Some(body) = child(tree, n, "body") else {
        return false;
    };
    constexpr
        && !returns_void
        && tree.label(body) == "compound_statement"
        && !tree
            .subtree(body)
            .any(|m| tree.label(m) == "return_statement")
}
