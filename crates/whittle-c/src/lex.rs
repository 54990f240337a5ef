//! The tokens of C and C++ that the moves below the tree rewrite: names, string contents,
//! numbers, blanks between tokens, and the replacement table (an expression by `0`, a compound
//! statement by `{}`, a statement by `;`, a type by `int`).

use whittle_core::{NodeId, Token, TokenKind, Tree};
use whittle_treesitter::LexSpec;

/// Where a name is bound: declarators, tags, enumerators, macros, labels, and C++'s classes,
/// namespaces, aliases, template parameters and references (kinds tree-sitter-c never makes,
/// so one table serves both languages).
const BINDINGS: &[(&str, &str)] = &[
    ("function_declarator", "declarator"),
    ("init_declarator", "declarator"),
    ("declaration", "declarator"),
    ("pointer_declarator", "declarator"),
    ("array_declarator", "declarator"),
    ("parenthesized_declarator", "child"),
    ("attributed_declarator", "child"),
    ("parameter_declaration", "declarator"),
    ("field_declaration", "declarator"),
    ("type_definition", "declarator"),
    ("struct_specifier", "name"),
    ("union_specifier", "name"),
    ("enum_specifier", "name"),
    ("enumerator", "name"),
    ("preproc_def", "name"),
    ("preproc_function_def", "name"),
    ("preproc_params", "child"),
    ("labeled_statement", "label"),
    ("class_specifier", "name"),
    ("namespace_definition", "name"),
    ("alias_declaration", "name"),
    ("reference_declarator", "child"),
    ("optional_parameter_declaration", "declarator"),
    ("type_parameter_declaration", "child"),
    ("optional_type_parameter_declaration", "name"),
    ("variadic_type_parameter_declaration", "child"),
    ("concept_definition", "name"),
];

/// Values that need no parentheses where a name stood.
const ATOMS: &[&str] = &[
    "identifier",
    "call_expression",
    "subscript_expression",
    "field_expression",
    "number_literal",
    "string_literal",
    "char_literal",
    "parenthesized_expression",
    "true",
    "false",
    "null",
];

/// The replacement table: an expression by `0`, a compound statement by `{}`, a statement by
/// `;` (where deleting it would leave a clause without its statement), a type by `int`; with
/// C++'s statements and expressions (`try`, range `for`, `new`, lambdas, fold expressions),
/// which tree-sitter-c never makes.
const PLACEHOLDERS: &[(&str, &[&str])] = &[
    ("compound_statement", &["{}"]),
    ("expression_statement", &[";"]),
    ("return_statement", &[";"]),
    ("if_statement", &[";"]),
    ("for_statement", &[";"]),
    ("for_range_loop", &[";"]),
    ("while_statement", &[";"]),
    ("do_statement", &[";"]),
    ("switch_statement", &[";"]),
    ("try_statement", &[";"]),
    ("call_expression", &["0"]),
    ("binary_expression", &["0"]),
    ("unary_expression", &["0"]),
    ("cast_expression", &["0"]),
    ("conditional_expression", &["0"]),
    ("parenthesized_expression", &["0"]),
    ("sizeof_expression", &["0"]),
    ("alignof_expression", &["0"]),
    ("pointer_expression", &["0"]),
    ("subscript_expression", &["0"]),
    ("field_expression", &["0"]),
    ("assignment_expression", &["0"]),
    ("comma_expression", &["0"]),
    ("update_expression", &["0"]),
    ("compound_literal_expression", &["0"]),
    ("new_expression", &["0"]),
    ("delete_expression", &["0"]),
    ("lambda_expression", &["0"]),
    ("fold_expression", &["0"]),
    ("string_literal", &["0"]),
    ("concatenated_string", &["0"]),
    ("initializer_list", &["{}", "0"]),
    ("primitive_type", &["int"]),
    ("sized_type_specifier", &["int"]),
];

/// The keywords of two and three letters (the renamings' fresh names must not be one).
const RESERVED: &[&str] = &[
    "do", "if", "or", "and", "asm", "for", "int", "new", "not", "try", "xor",
];

/// Whether the line break at `at` may go: not at the end or the start of a preprocessor line
/// (a directive ends at its line break, and starts a line; its lines continued by a `\` are
/// one line), nor after a line comment or a `\` (a `//` anywhere on the line before, even in a
/// string, keeps it: the test is by the bytes).
fn line_break_may_go(src: &[u8], at: usize) -> bool {
    let line_start = |end: usize| {
        src[..end]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
    };
    // The line before a line start continues into it if it ends with a `\` (before a `\r`).
    let continued = |start: usize| {
        let line = &src[..start.saturating_sub(1)];
        line.strip_suffix(b"\r").unwrap_or(line).ends_with(b"\\")
    };
    let mut start = line_start(at);
    while start > 0 && continued(start) {
        start = line_start(start - 1);
    }
    let before = &src[start..at];
    let after = &src[at + 1..];
    let after = &after[..after
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(after.len())];
    let starts_directive = |line: &[u8]| line.trim_ascii_start().starts_with(b"#");
    !starts_directive(before)
        && !starts_directive(after)
        && !before.windows(2).any(|w| w == b"//")
        && !before.trim_ascii_end().ends_with(b"\\")
}

/// The kinds of C++ template parameters that declare a type, `typename T` or `class T`.
const TYPE_PARAMETERS: &[&str] = &[
    "type_parameter_declaration",
    "variadic_type_parameter_declaration",
    "optional_type_parameter_declaration",
];

/// The `typename` keyword that opens a type template parameter, as the shorter `class`, which
/// means the same there (C++ [temp.param]: "There is no semantic difference between `class` and
/// `typename` in a type-parameter-key"), all at once: `template<typename T>` becomes
/// `template<class T>`. Elsewhere (`typename T::type`, a dependent name) `typename` is another
/// node and stays.
pub(crate) fn typename_keywords(tree: &Tree) -> impl Iterator<Item = Token> + '_ {
    tree.nodes()
        .filter(|&n| TYPE_PARAMETERS.contains(&tree.label(n)))
        .filter_map(|n| {
            let text = tree.text(n);
            let word_ends = text.get(8).is_none_or(|&b| !is_word(b));
            (text.starts_with(b"typename") && word_ends).then(|| {
                let start = tree.span(n).start;
                Token {
                    span: start..start + 8,
                    kind: TokenKind::Shorter("class"),
                }
            })
        })
}

/// `"x.h"` of `#include "x.h"`: the header's file name.
fn is_include_path(tree: &Tree, n: NodeId) -> bool {
    tree.parent(n)
        .is_some_and(|p| tree.label(p) == "preproc_include" && tree.edge(n) == "path")
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Whether a blank touches a line continuation (`\` and a line break): those lines are one,
/// so `#define N \⏎  2` without its blanks would be `#define N2`.
pub(crate) fn touches_continuation(src: &[u8], span: &std::ops::Range<usize>) -> bool {
    let after = &src[span.end..];
    after.starts_with(b"\\\n")
        || after.starts_with(b"\\\r\n")
        || src[..span.start].ends_with(b"\\\n")
        || src[..span.start].ends_with(b"\\\r\n")
}

/// The tokens of both languages: the kinds only C++ has (`namespace_identifier`, raw strings)
/// never occur in a C tree.
pub(crate) const LEX: LexSpec = LexSpec {
    names: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "statement_identifier",
        "namespace_identifier",
    ],
    bindings: BINDINGS,
    projections: &[],
    strings: &[("string_literal", 1, 1)],
    references: is_include_path,
    comments: &["comment"],
    numbers: &["number_literal"],
    definitions: &[],
    atoms: ATOMS,
    not_uses: &[],
    placeholders: PLACEHOLDERS,
    statements: &[],
    substitutes: &[],
    // A name a C file uses without declaring it is a header's (or the compiler's, `__builtin_…`):
    // renaming it only breaks the compile. In a self-contained file every name is the file's own
    // (see `C::lexicon`).
    rename_free: false,
    special: &[],
    one_line_blocks: &[],
    compound: &[],
    verbatim: &[
        "string_literal",
        "raw_string_literal",
        "char_literal",
        "system_lib_string",
    ],
    reserved: RESERVED,
    keep_indentation: false,
    joinable: Some(line_break_may_go),
    is_word,
};
