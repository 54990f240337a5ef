//! The JavaScript format: tree-sitter-javascript trees, automatic semicolon insertion kept safe
//! when statements come to meet, string and regular-expression literals kept whole, and swc's
//! parser as the validity gate. JSX is out of scope (see `docs/javascript.md`).

use swc_common::BytePos;
use swc_ecma_ast::EsVersion;
use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, lexer::Lexer};
use whittle_core::{
    CompiledRules, Deletion, Document, Edit, Edits, Format, NodeId, ParseError, SubstituteByChild,
    Template, Tree,
};
use whittle_treesitter::{Asi, LexSpec, LiteralsAlone, Spec};

/// The npm packages (`name@version`, for `npm pack`) of the JavaScript corpus, fetched into
/// `target/corpus/javascript/` (never committed): 4,646 `.js`, `.mjs` and `.cjs` files. The round
/// trip of `docs/javascript.md` runs over them, and rules are learned from them.
pub const NPM_CORPUS: &[&str] = &[
    "lodash@4.17.21",
    "moment@2.30.1",
    "jquery@3.7.1",
    "react-dom@18.3.1",
    "three@0.160.0",
    "d3@7.9.0",
    "acorn@8.19.0",
    "vue@3.4.21",
    "rxjs@7.8.1",
    "underscore@1.13.6",
    "ramda@0.30.1",
];

/// JavaScript source files (scripts and ES modules).
#[derive(Clone, Copy, Debug, Default)]
pub struct JavaScript;

fn spec() -> Spec {
    Spec {
        language: tree_sitter_javascript::LANGUAGE.into(),
        separators: &[","],
        // Multi-line literals whose lines `tidy` must not touch.
        protected: &["string", "template_string"],
        reindent: false,
        block: None,
        // A string literal and a regex are leaves and a template literal's only children are its
        // `${…}` substitutions: deleting a regex's pattern would turn `/a/g` into the comment
        // `//g`, and deleting an escape could make a new one. `?.` is a token like `.`
        // (deleting it would turn `a?.b` into the identifier `ab`).
        tokens: &[
            "string_fragment",
            "escape_sequence",
            "html_character_reference",
            "regex_pattern",
            "regex_flags",
            "optional_chain",
        ],
        asi: Some(Asi {
            lists: &[
                "program",
                "statement_block",
                "switch_case",
                "switch_default",
                "class_body",
            ],
            extras: &["comment", "html_comment"],
            // `(`, `[`, a template, a regex, `+`/`-` continue an expression on the next line;
            // `*` a class field before a generator method.
            continues: b"([`/+-*",
            ends: b";:",
        }),
        optional: None,
        comments: &["comment", "html_comment"],
        empty_items: &[],
    }
}

/// The moves below the tree for JavaScript: names (variables, properties, labels), string
/// contents, numbers, blanks between tokens, and a small placeholder table (an expression by `0`,
/// a block by `{}`).
const LEX: LexSpec = LexSpec {
    names: &[
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "statement_identifier",
    ],
    bindings: &[
        ("variable_declarator", "name"),
        ("function_declaration", "name"),
        ("function_expression", "name"),
        ("generator_function_declaration", "name"),
        ("generator_function", "name"),
        ("class_declaration", "name"),
        ("class", "name"),
        ("formal_parameters", "child"),
        ("arrow_function", "parameter"),
        ("assignment_pattern", "left"),
        ("rest_pattern", "child"),
        ("array_pattern", "child"),
        ("object_pattern", "child"),
        ("pair_pattern", "value"),
        ("catch_clause", "parameter"),
        ("for_in_statement", "left"),
        ("labeled_statement", "label"),
        ("import_specifier", "alias"),
        ("namespace_import", "child"),
        ("import_clause", "child"),
        ("method_definition", "name"),
        ("field_definition", "property"),
        ("pair", "key"),
        ("assignment_expression", "left"),
        ("augmented_assignment_expression", "left"),
    ],
    projections: &[("member_expression", "property")],
    strings: &[("string", 1, 1)],
    references: is_module_specifier,
    comments: &["comment"],
    numbers: &["number"],
    definitions: &[
        (
            "lexical_declaration",
            "variable_declarator",
            "name",
            "value",
        ),
        (
            "variable_declaration",
            "variable_declarator",
            "name",
            "value",
        ),
    ],
    atoms: &[
        "identifier",
        "member_expression",
        "call_expression",
        "subscript_expression",
        "string",
        "template_string",
        "number",
        "array",
        "parenthesized_expression",
        "true",
        "false",
        "null",
        "undefined",
        "this",
        "regex",
    ],
    not_uses: &[],
    placeholders: &[
        ("statement_block", &["{}"]),
        ("call_expression", &["0"]),
        ("member_expression", &["0"]),
        ("subscript_expression", &["0"]),
        ("binary_expression", &["0"]),
        ("unary_expression", &["0"]),
        ("update_expression", &["0"]),
        ("object", &["0"]),
        ("array", &["0"]),
        ("arrow_function", &["0"]),
        ("function_expression", &["0"]),
        ("parenthesized_expression", &["0"]),
        ("ternary_expression", &["0"]),
        ("new_expression", &["0"]),
        ("template_string", &["0"]),
        ("string", &["0"]),
        ("await_expression", &["0"]),
        ("sequence_expression", &["0"]),
    ],
    statements: &[
        "expression_statement",
        "lexical_declaration",
        "variable_declaration",
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "if_statement",
        "switch_statement",
        "for_statement",
        "for_in_statement",
        "while_statement",
        "do_statement",
        "try_statement",
        "with_statement",
        "return_statement",
        "throw_statement",
        "labeled_statement",
        "import_statement",
        "export_statement",
    ],
    // A number, a name, a string, a template: each parses where a statement may stand, and
    // each is read differently by older parsers (a template literal is ES2015).
    substitutes: &["0", "a", "\"\"", "``"],
    rename_free: true,
    special: &["arguments"],
    one_line_blocks: &[],
    compound: &[],
    verbatim: &["string", "template_string", "regex"],
    reserved: &["do", "if", "in"],
    keep_indentation: false,
    joinable: None,
    is_word: whittle_treesitter::is_word,
};

/// The literal probe: strings, numbers, regular expressions and templates without
/// substitutions, each a statement of its own; tagged templates are left out (untagged, an
/// escape such as `\u` in `` String.raw`C:\users` `` is an error), and so is `"use strict"` (as
/// the first statement it would make the probe strict, where octal escapes are errors).
const ALONE: LiteralsAlone = LiteralsAlone {
    kinds: &["string", "number", "regex", "template_string"],
    holes: &["template_substitution"],
    not_values: &[("call_expression", "arguments")],
    skip: &[b"use strict"],
    end: b";\n",
};

/// The module an import, an export or a call of `require` or `import` names: `'x'` of
/// `import a from 'x'`, `export * from 'x'`, `require('x')` and `import('x')`.
fn is_module_specifier(tree: &Tree, n: NodeId) -> bool {
    let Some(p) = tree.parent(n) else {
        return false;
    };
    match tree.label(p) {
        "import_statement" | "export_statement" => tree.edge(n) == "source",
        "arguments" => tree.parent(p).is_some_and(|call| {
            tree.label(call) == "call_expression"
                && tree.children(p).first() == Some(&n)
                && tree.children(call).iter().any(|&f| {
                    tree.edge(f) == "function"
                        && (tree.label(f) == "import"
                            || (tree.label(f) == "identifier" && tree.text(f) == b"require"))
                })
        }),
        _ => false,
    }
}

impl Format for JavaScript {
    fn name(&self) -> &'static str {
        "javascript"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["js", "mjs", "cjs"]
    }

    fn description(&self) -> &'static str {
        "JavaScript (tree-sitter-javascript; keeps ASI safe; swc parser gate; no JSX)"
    }

    /// Comments (`//`, `/* */`, and the `<!--` ones of scripts): what the language ignores.
    fn blanks(&self, doc: &Document) -> Vec<whittle_core::NodeId> {
        whittle_treesitter::comments(&spec(), doc)
    }

    fn lexicon(&self, doc: &Document) -> Option<whittle_core::Lexicon> {
        Some(whittle_treesitter::lexicon(&LEX, doc))
    }

    fn literals_alone(&self, doc: &Document) -> Option<Vec<u8>> {
        whittle_treesitter::literals_alone(doc, &ALONE)
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        whittle_treesitter::parse(&spec(), input)
    }

    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        whittle_treesitter::render(&spec(), doc, edits, out);
    }

    /// Trailing white space and blank lines, which deletions leave behind, go, and every line is
    /// indented by one space per enclosing block (indentation is not syntax in JavaScript; lines
    /// inside multi-line strings and template literals are kept as they are).
    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        let spec = Spec {
            reindent: true,
            block: Some("statement_block"),
            ..spec()
        };
        whittle_treesitter::tidy(&spec, doc)
    }

    fn templates(&self) -> Vec<Box<dyn Template>> {
        vec![
            Box::new(Deletion),
            Box::new(SubstituteByChild),
            Box::new(ClauseBody),
        ]
    }

    fn has_gate(&self) -> bool {
        true
    }

    /// The candidate is UTF-8 and swc parses it, without any error it recovers from, as a script
    /// or as an ES module (the latest ECMAScript, no JSX). Both goals are tried on every call, the
    /// likelier first (module if `import` or `export` occurs in the text): the gate sees only
    /// bytes, and one process may reduce several inputs, so it keeps no state.
    ///
    /// swc's parser (and the drop of its syntax tree) recurses once per level of nesting, so it
    /// runs on a thread whose stack is large enough for the input's worst case (see
    /// [`STACK_PER_TOKEN`]); an input too large for [`MAX_STACK`], a thread that cannot be
    /// started or a parser panic let the candidate through to the test.
    fn gate(&self, bytes: &[u8]) -> bool {
        let Ok(src) = std::str::from_utf8(bytes) else {
            return false;
        };
        // A leading byte order mark is not part of the source.
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        let Some(stack) = stack_for(src.as_bytes()) else {
            return true;
        };
        let goals = if mentions_modules(src.as_bytes()) {
            [Goal::Module, Goal::Script]
        } else {
            [Goal::Script, Goal::Module]
        };
        let check = || goals.iter().any(|&g| parses(src, g));
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("whittle-js-gate".to_string())
                .stack_size(stack)
                .spawn_scoped(s, check)
                .ok()
                .is_none_or(|h| h.join().unwrap_or(true))
        })
    }
}

/// Stack bytes swc may use per token of the input, with a margin: in a release build at most
/// 2.1 KB were measured, for a level of `(` nesting, the costliest per token (a level of nested
/// `function(){…}` takes 6 KB but seven tokens); a build with debug assertions (the dev
/// profile) takes about ten times as much (22.5 KB per `(`).
pub const STACK_PER_TOKEN: usize = if cfg!(debug_assertions) {
    32 << 10
} else {
    3 << 10
};

/// The largest stack the gate asks for (virtual memory: only the pages used are committed). In a
/// release build it covers inputs of up to 700 000 tokens (about 2 MB of minified code).
pub const MAX_STACK: usize = 2 << 30;

/// The stack the gate's thread needs for `src`: [`STACK_PER_TOKEN`] times an upper bound on the
/// number of tokens (every punctuation byte and every start of a word counts), plus a base;
/// `None` above [`MAX_STACK`].
fn stack_for(src: &[u8]) -> Option<usize> {
    let mut tokens = 0usize;
    let mut in_word = false;
    for &b in src {
        let word = b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
        if word {
            tokens += usize::from(!in_word);
        } else if !b.is_ascii_whitespace() {
            tokens += 1;
        }
        in_word = word;
    }
    let stack = tokens.checked_mul(STACK_PER_TOKEN)?.checked_add(1 << 20)?;
    (stack <= MAX_STACK).then_some(stack)
}

/// Whether the text looks like it has an `import` or `export` declaration (the keyword, not
/// preceded by a name character or `.`, and followed by white space, `{`, `*` or a quote):
/// then the module goal is tried first.
fn mentions_modules(src: &[u8]) -> bool {
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.';
    src.windows(6).enumerate().any(|(i, w)| {
        (w == b"import" || w == b"export")
            && (i == 0 || !name(src[i - 1]))
            && src.get(i + 6).is_some_and(|b| b" \t\r\n{*\"'".contains(b))
    })
}

/// The goal symbol a source is parsed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    Script,
    Module,
}

/// Whether swc parses `src` with `goal` without any error, fatal or recovered.
fn parses(src: &str, goal: Goal) -> bool {
    let Ok(len) = u32::try_from(src.len()) else {
        return false;
    };
    let Some(end) = len.checked_add(1) else {
        return false;
    };
    let input = StringInput::new(src, BytePos(1), BytePos(end));
    let syntax = Syntax::Es(EsSyntax::default());
    let lexer = Lexer::new(syntax, EsVersion::latest(), input, None);
    let mut parser = Parser::new_from(lexer);
    let ok = match goal {
        Goal::Script => parser.parse_script().is_ok(),
        Goal::Module => parser.parse_module().is_ok(),
    };
    ok && parser.take_errors().is_empty()
}

/// Replaces a statement by the body of one of its clauses, which substitute-by-child cannot reach
/// because it is a grandchild: `if (c) a; else b;` by `b;`, `try {…} catch (e) {…} finally {…}`
/// by the catch or the finally block. (The `if`'s own consequence and the `try` block are
/// children, so substitute-by-child already offers them.)
#[derive(Clone, Copy, Debug, Default)]
pub struct ClauseBody;

impl Template for ClauseBody {
    fn name(&self) -> &'static str {
        "clause-body"
    }

    fn at_most_one(&self) -> bool {
        false
    }

    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize {
        let tree = &doc.tree;
        if !matches!(tree.label(n), "if_statement" | "try_statement") {
            return 0;
        }
        let mut filtered = 0;
        for &clause in tree.children(n) {
            if !matches!(
                tree.label(clause),
                "else_clause" | "catch_clause" | "finally_clause"
            ) {
                continue;
            }
            // The clause's statement: an `else`'s only child, a `catch`'s or `finally`'s body.
            let body = tree
                .children(clause)
                .iter()
                .copied()
                .find(|&b| tree.label(clause) == "else_clause" || tree.edge(b) == "body");
            let Some(body) = body else { continue };
            if rules.is_some_and(|r| !r.may_substitute(tree, n, body)) {
                filtered += 1;
            } else {
                out.push(Edit::Replace(body));
            }
        }
        filtered
    }
}

#[cfg(test)]
mod tests;
