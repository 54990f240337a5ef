//! The Python format: tree-sitter-python trees, re-indentation when code moves between
//! indentation depths, a template that splices a clause's block into the place of its compound
//! statement, and ruff's parser as the validity gate.

use whittle_core::{
    CompiledRules, Deletion, Document, Edit, Edits, Format, Lexicon, NodeId, ParseError,
    SubstituteByChild, Template,
};
use whittle_treesitter::{LexSpec, LiteralsAlone, Spec};

/// Python source files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Python;

fn spec() -> Spec {
    Spec {
        language: tree_sitter_python::LANGUAGE.into(),
        separators: &[",", ";"],
        protected: &["string", "concatenated_string"],
        reindent: true,
        block: Some("block"),
        tokens: &[],
        asi: None,
        optional: None,
        comments: &["comment"],
        empty_items: &[],
    }
}

/// The literal probe: strings (each part of an implicit concatenation on its own; an f-string
/// with a replacement field is left out, the literals inside the field are not), integers and
/// floats, each on a line of its own.
const ALONE: LiteralsAlone = LiteralsAlone {
    kinds: &["string", "integer", "float"],
    holes: &["interpolation"],
    not_values: &[],
    skip: &[],
    end: b"\n",
};

/// The moves below the tree for Python: names, string contents, numbers, blanks between tokens,
/// and a small placeholder table (an expression, a block or a simple statement by `0`).
const LEX: LexSpec = LexSpec {
    names: &["identifier"],
    bindings: &[
        ("function_definition", "name"),
        ("class_definition", "name"),
        ("parameters", "child"),
        ("lambda_parameters", "child"),
        ("default_parameter", "name"),
        ("typed_parameter", "child"),
        ("typed_default_parameter", "name"),
        ("list_splat_pattern", "child"),
        ("dictionary_splat_pattern", "child"),
        ("assignment", "left"),
        ("augmented_assignment", "left"),
        ("pattern_list", "child"),
        ("tuple_pattern", "child"),
        ("list_pattern", "child"),
        ("for_statement", "left"),
        ("for_in_clause", "left"),
        ("as_pattern_target", "child"),
        ("aliased_import", "alias"),
        ("global_statement", "child"),
        ("nonlocal_statement", "child"),
        ("named_expression", "name"),
    ],
    projections: &[("attribute", "attribute")],
    strings: &[("string_content", 0, 0)],
    // Python imports name modules by dotted names, not strings.
    references: whittle_treesitter::no_references,
    comments: &["comment"],
    numbers: &["integer", "float"],
    definitions: &[("expression_statement", "assignment", "left", "right")],
    atoms: &[
        "identifier",
        "attribute",
        "call",
        "subscript",
        "string",
        "concatenated_string",
        "integer",
        "float",
        "true",
        "false",
        "none",
        "list",
        "dictionary",
        "set",
        "parenthesized_expression",
        "list_comprehension",
        "dictionary_comprehension",
        "set_comprehension",
        "generator_expression",
    ],
    not_uses: &[("keyword_argument", "name")],
    placeholders: &[
        ("block", &["0"]),
        ("return_statement", &["0"]),
        ("raise_statement", &["0"]),
        ("expression_statement", &["0"]),
        ("call", &["0"]),
        ("attribute", &["0"]),
        ("subscript", &["0"]),
        ("binary_operator", &["0"]),
        ("boolean_operator", &["0"]),
        ("comparison_operator", &["0"]),
        ("unary_operator", &["0"]),
        ("not_operator", &["0"]),
        ("list", &["0"]),
        ("tuple", &["0"]),
        ("dictionary", &["0"]),
        ("set", &["0"]),
        ("parenthesized_expression", &["0"]),
        ("lambda", &["0"]),
        ("conditional_expression", &["0"]),
        ("list_comprehension", &["0"]),
        ("dictionary_comprehension", &["0"]),
        ("set_comprehension", &["0"]),
        ("generator_expression", &["0"]),
        ("concatenated_string", &["0"]),
        ("string", &["0"]),
        ("await", &["0"]),
    ],
    statements: &[
        "expression_statement",
        "return_statement",
        "delete_statement",
        "raise_statement",
        "pass_statement",
        "assert_statement",
        "global_statement",
        "nonlocal_statement",
        "import_statement",
        "import_from_statement",
    ],
    substitutes: &["0", "a", "\"\""],
    rename_free: true,
    special: &[
        "self",
        "cls",
        "super",
        "__name__",
        "__file__",
        "__doc__",
        "__builtins__",
        "__class__",
        "__dict__",
        "__init__",
        "__module__",
        "__qualname__",
    ],
    one_line_blocks: &["block"],
    compound: COMPOUND,
    verbatim: &["string", "concatenated_string"],
    reserved: &["as", "if", "in", "is", "or"],
    keep_indentation: true,
    joinable: None,
    is_word,
};

/// Statements that open a block of their own, so cannot follow another header's `:` on its line.
const COMPOUND: &[&str] = &[
    "if_statement",
    "for_statement",
    "while_statement",
    "try_statement",
    "with_statement",
    "match_statement",
    "function_definition",
    "class_definition",
    "decorated_definition",
];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

impl Format for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py", "pyi", "pyw"]
    }

    fn description(&self) -> &'static str {
        "Python (tree-sitter-python; re-indents moved code; ruff parser gate)"
    }

    /// A block that replaces a compound statement is rendered as its statements, re-indented.
    fn splices_lists(&self) -> bool {
        true
    }

    /// Comments, which the language ignores (an encoding declaration too: the test decides).
    fn blanks(&self, doc: &Document) -> Vec<whittle_core::NodeId> {
        whittle_treesitter::comments(&spec(), doc)
    }

    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        Some(whittle_treesitter::lexicon(&LEX, doc))
    }

    /// The literals, after the line that declares the file's encoding, if one of the first two
    /// does (PEP 263): in another encoding, they would not decode without it.
    fn literals_alone(&self, doc: &Document) -> Option<Vec<u8>> {
        let probe = whittle_treesitter::literals_alone(doc, &ALONE)?;
        Some(match cookie_line(doc.tree.source()) {
            Some(line) if line.ends_with(b"\n") => [line, &probe].concat(),
            Some(line) => [line, b"\n", &probe].concat(),
            None => probe,
        })
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        whittle_treesitter::parse(&spec(), input)
    }

    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        whittle_treesitter::render(&spec(), doc, edits, out);
    }

    /// Trailing white space and blank lines, which deletions leave behind, go at the end, and
    /// every line is indented by one space per block.
    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        whittle_treesitter::tidy(&spec(), doc)
    }

    fn templates(&self) -> Vec<Box<dyn Template>> {
        vec![
            Box::new(Deletion),
            Box::new(SubstituteByChild),
            Box::new(SpliceBlock),
        ]
    }

    fn has_gate(&self) -> bool {
        true
    }

    /// The candidate decodes (UTF-8, or the encoding its PEP 263 coding cookie declares) and
    /// ruff's parser (CPython's grammar) accepts it.
    fn gate(&self, bytes: &[u8]) -> bool {
        decode(bytes).is_some_and(|s| ruff_python_parser::parse_module(&s).is_ok())
    }
}

/// The source text: by the coding cookie of the first two lines (PEP 263) if there is one and it
/// is not UTF-8, else UTF-8. `None` if the bytes do not decode.
fn decode(bytes: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let label = cookie_line(bytes).and_then(coding_cookie);
    match label
        .map(normal_name)
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()))
    {
        Some(enc) if enc != encoding_rs::UTF_8 => {
            enc.decode_without_bom_handling_and_without_replacement(bytes)
        }
        _ => std::str::from_utf8(bytes)
            .ok()
            .map(std::borrow::Cow::Borrowed),
    }
}

/// The one of the first two lines of `src` (with its line break) that holds a coding cookie
/// (PEP 263), if one does.
fn cookie_line(src: &[u8]) -> Option<&[u8]> {
    (src.split_inclusive(|&b| b == b'\n').take(2)).find(|line| coding_cookie(line).is_some())
}

/// CPython's tokenizer's normalization of a cookie name (`get_normal_name`).
fn normal_name(label: &[u8]) -> String {
    let name = String::from_utf8_lossy(label)
        .to_ascii_lowercase()
        .replace('_', "-");
    let is = |n: &str| name == n || name.starts_with(&format!("{n}-"));
    if is("utf-8") {
        "utf-8".to_string()
    } else if is("latin-1") || is("iso-8859-1") || is("iso-latin-1") {
        "iso-8859-1".to_string()
    } else {
        name
    }
}

/// The encoding name of a `# -*- coding: NAME -*-` style comment line.
fn coding_cookie(line: &[u8]) -> Option<&[u8]> {
    let trimmed = line
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t' | b'\x0c'))?;
    if line[trimmed] != b'#' {
        return None;
    }
    let at = line.windows(6).position(|w| w == b"coding")? + 6;
    let rest = line.get(at..)?;
    if !matches!(rest.first(), Some(b':' | b'=')) {
        return None;
    }
    let rest = &rest[1..];
    let start = rest.iter().position(|&b| b != b' ' && b != b'\t')?;
    let len = rest[start..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        .count();
    (len > 0).then(|| &rest[start..start + len])
}

/// Replaces a compound statement by the block of one of its clauses (`else:`, `elif …:`,
/// `except …:`, `finally:`, `case …:`), which substitute-by-child cannot reach because the block is
/// a grandchild. With re-indentation this splices the block's statements into the statement's
/// place. (The statement's own `body` block is a child, so substitute-by-child already offers it.)
#[derive(Clone, Copy, Debug, Default)]
pub struct SpliceBlock;

impl Template for SpliceBlock {
    fn name(&self) -> &'static str {
        "splice-block"
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
        let mut filtered = 0;
        // Clauses directly under the statement, or under its body block (`match` keeps its
        // `case` clauses there).
        let mut clauses: Vec<NodeId> = Vec::new();
        for &c in tree.children(n) {
            if tree.label(c).ends_with("_clause") {
                clauses.push(c);
            } else if tree.label(c) == "block" && tree.label(n) == "match_statement" {
                clauses.extend(
                    tree.children(c)
                        .iter()
                        .filter(|&&k| tree.label(k).ends_with("_clause")),
                );
            }
        }
        for clause in clauses {
            for &b in tree.children(clause) {
                if tree.label(b) != "block" {
                    continue;
                }
                if rules.is_some_and(|r| !r.may_substitute(tree, n, b)) {
                    filtered += 1;
                } else {
                    out.push(Edit::Replace(b));
                }
            }
        }
        filtered
    }
}

#[cfg(test)]
mod tests;
