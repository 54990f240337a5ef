//! The C and C++ formats: tree-sitter-c and tree-sitter-cpp trees (GNU extensions, preprocessor
//! lines and blocks as nodes, what the grammar cannot read kept as opaque `ERROR` leaves), a
//! validity gate (a candidate may not have more grammar errors, nor more names it uses without
//! declaring them, than the input), the
//! moves below the tree of the other code formats, and list moves over declarations: function
//! bodies to `;`, declarations nothing names deleted in batches, a declaration deleted together
//! with every statement that names it. See `docs/c.md`.

mod decls;
mod flatten;
mod lex;
mod names;
mod scope;
mod slices;
mod with_uses;

use whittle_core::{Document, Edits, Format, Lexicon, ListMove, ParseError, Slices, TokenKind};
use whittle_treesitter::{EmptyItem, LexSpec, Optional, Spec};

/// One language of the C family: its grammar, names and tables.
#[derive(Clone, Copy)]
pub struct CFamily {
    name: &'static str,
    extensions: &'static [&'static str],
    description: &'static str,
    language: fn() -> tree_sitter::Language,
    lex: &'static LexSpec,
    moves: &'static [ListMove],
    /// What a deleted list element takes with it: its `,`, and in C++ an access specifier's
    /// `:` (tree-sitter-cpp leaves it outside the `access_specifier` node, so `public:` could
    /// not go otherwise).
    separators: &'static [&'static str],
    /// C rather than C++: a function may be called without a declaration (C89's implicit
    /// declarations, which GCC 12 accepts), and tags, members and ordinary names are apart.
    c: bool,
}

impl std::fmt::Debug for CFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CFamily").field("name", &self.name).finish()
    }
}

/// C: `.c`, `.h` and preprocessed `.i` files (GNU C as compilers read it).
pub const C: CFamily = CFamily {
    name: "c",
    extensions: &["c", "h", "i"],
    description: "C (tree-sitter-c; GNU extensions; structural gate; declaration moves)",
    language: || tree_sitter_c::LANGUAGE.into(),
    lex: &lex::LEX,
    moves: &decls::MOVES,
    separators: &[","],
    c: true,
};

/// C++: `.cc`, `.cpp`, `.cxx`, `.c++`, headers and preprocessed `.ii` files.
pub const CPP: CFamily = CFamily {
    name: "cpp",
    extensions: &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "ii"],
    description: "C++ (tree-sitter-cpp; structural gate; declaration moves)",
    language: || tree_sitter_cpp::LANGUAGE.into(),
    lex: &lex::LEX,
    moves: &decls::MOVES,
    separators: &[",", ":"],
    c: false,
};

impl CFamily {
    fn spec(&self) -> Spec {
        Spec {
            language: (self.language)(),
            separators: self.separators,
            // Multi-line literals whose lines `tidy` must not touch.
            protected: &[
                "string_literal",
                "raw_string_literal",
                "concatenated_string",
            ],
            reindent: false,
            block: None,
            // A string or character literal is a leaf (its content shrinks below the tree, and
            // deleting an escape could make another one).
            tokens: &[
                "string_content",
                "escape_sequence",
                "character",
                "raw_string_content",
                "raw_string_delimiter",
                "literal_suffix",
            ],
            asi: None,
            // GNU attributes where tree-sitter-cpp cannot read them (a namespace head, between
            // a declarator and its `=`): the file is read without them, each an opaque leaf.
            optional: Some(Optional {
                find: whittle_treesitter::gnu_attributes,
                label: "attribute_specifier",
            }),
            comments: self.lex.comments,
            empty_items: EMPTY_DECLARATIONS,
        }
    }
}

/// The empty declaration `;` where it stands alone in a list of declarations: after a class's
/// `}` at file scope, in a namespace's or an `extern "C"` block's body, and in a class body
/// after a member function defined there (`void f() { g(); };`). Deleting what came before it
/// leaves it.
const EMPTY_DECLARATIONS: &[EmptyItem] = &[
    empty_declaration("translation_unit"),
    empty_declaration("declaration_list"),
    empty_declaration("field_declaration_list"),
];

const fn empty_declaration(list: &'static str) -> EmptyItem {
    EmptyItem {
        list,
        token: ";",
        label: "empty_declaration",
    }
}

impl Format for CFamily {
    fn name(&self) -> &'static str {
        self.name
    }

    fn extensions(&self) -> &'static [&'static str] {
        self.extensions
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        whittle_treesitter::parse(&self.spec(), input)
    }

    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        whittle_treesitter::render(&self.spec(), doc, edits, out);
    }

    /// Trailing blanks and blank lines, which deletions leave behind, go, and every line is
    /// indented by one space per enclosing compound statement (multi-line string literals
    /// are kept as they are).
    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        let spec = Spec {
            reindent: true,
            block: Some("compound_statement"),
            ..self.spec()
        };
        whittle_treesitter::tidy(&spec, doc)
    }

    /// Comments, which the preprocessor replaces by a space (C-Reduce's and C-Vise's comment
    /// pass): a file that was not preprocessed has them at every level.
    fn blanks(&self, doc: &Document) -> Vec<whittle_core::NodeId> {
        whittle_treesitter::comments(&self.spec(), doc)
    }

    /// The names, literals, numbers, blanks and placeholders of [`lex`]; `main` is never
    /// renamed (a program's entry point is named by the linker, not by the file). In a file
    /// without `#include` (preprocessed, or self-contained), every name that does not begin
    /// with `__` is the file's own, also where tree-sitter does not see it bound: it reads an
    /// implicit-int declaration such as `*p;` or `f(c) {…}` as a statement or a type, which
    /// compilers accept in GNU C. Names beginning with `__` belong to the implementation
    /// (builtins, attribute names), and are renamed only where the file binds them.
    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        let mut lexicon = whittle_treesitter::lexicon_with_free_names(self.lex, doc);
        let tree = &doc.tree;
        let src = tree.source();
        lexicon.tokens.retain(|t| match t.kind {
            TokenKind::Name { .. } => &src[t.span.clone()] != b"main",
            TokenKind::Space { .. } => !lex::touches_continuation(src, &t.span),
            _ => true,
        });
        let self_contained = !tree.nodes().any(|n| tree.label(n) == "preproc_include");
        if self_contained {
            for t in &mut lexicon.tokens {
                if let TokenKind::Name { bound, .. } = &mut t.kind
                    && !src[t.span.clone()].starts_with(b"__")
                {
                    *bound = true;
                }
            }
        }
        whittle_treesitter::keep_renamable_names(self.lex, src, &mut lexicon.tokens);
        lexicon.tokens.extend(lex::typename_keywords(tree));
        Some(lexicon)
    }

    fn list_moves(&self) -> &'static [ListMove] {
        self.moves
    }

    /// In C, the declarations at file scope, each needing those that declare a name it uses
    /// ([`slices`]). Not in C++: there a name matched by its text is not enough to tell what a
    /// part needs (overloads, argument-dependent lookup, operators, specializations), and on
    /// preprocessed libstdc++ what one function names by text is half the file while what it
    /// needs without naming it makes ddmin keep dozens of parts (`docs/c.md`, "The slice").
    fn slices(&self, doc: &Document) -> Option<Slices> {
        self.c.then(|| slices::slices(doc)).flatten()
    }

    fn has_gate(&self) -> bool {
        true
    }

    /// Whether tree-sitter reads the candidate without any error or missing token, and it
    /// uses no name it does not declare ([`scope`]).
    fn gate(&self, bytes: &[u8]) -> bool {
        self.gate_counts(bytes, &[0, 0]).is_some()
    }

    /// The input's own errors and undeclared names: preprocessed libstdc++ has constructs the
    /// grammar does not read, and a file with `#include`s uses names its headers declare, so a
    /// candidate may have as many of each as the input, never more.
    fn gate_allowance(&self, input: &[u8]) -> Option<Vec<usize>> {
        Some(self.defects(input).to_vec())
    }

    fn gate_counts(&self, bytes: &[u8], allowance: &[usize]) -> Option<Vec<usize>> {
        let &[errors, undeclared] = allowance else {
            return None;
        };
        // Too many places the grammar cannot read: rejected before whittle's tree is built.
        match whittle_treesitter::parse_counting_at_most(&self.spec(), bytes, errors) {
            Ok(Some((doc, found))) => {
                let names = scope::undeclared(&doc.tree, self.c);
                (names <= undeclared).then(|| vec![found, names])
            }
            Ok(None) => None,
            // Bytes tree-sitter gives up on pass only where the input's did too ([`defects`]).
            Err(_) => (allowance == [usize::MAX; 2]).then(|| vec![usize::MAX; 2]),
        }
    }
}

impl CFamily {
    /// The gate's two counts, from one parse: the places tree-sitter cannot read (its `ERROR`
    /// nodes and `MISSING` tokens, [`whittle_treesitter::parse_counting`]), and the names used
    /// and not declared ([`scope::undeclared`]); `usize::MAX` for bytes that do not parse.
    fn defects(&self, bytes: &[u8]) -> [usize; 2] {
        whittle_treesitter::parse_counting(&self.spec(), bytes)
            .map_or([usize::MAX; 2], |(doc, errors)| {
                [errors, scope::undeclared(&doc.tree, self.c)]
            })
    }
}

#[cfg(test)]
mod tests;
