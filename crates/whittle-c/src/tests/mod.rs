use super::*;
use whittle_core::{Edit, Splices, Tree};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/c/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn round_trip(format: &CFamily, input: &[u8]) -> Document {
    let doc = format.parse(input).expect("parses");
    let mut out = Vec::new();
    format.render(&doc, &Edits::new(), &mut out);
    assert_eq!(out, input, "round trip");
    doc
}

/// Asserts that the tree has a node of every kind of `kinds`.
fn assert_kinds(tree: &Tree, kinds: &[&str]) {
    let seen: Vec<&str> = tree.nodes().map(|n| tree.label(n)).collect();
    for kind in kinds {
        assert!(seen.contains(kind), "no {kind} in {seen:?}");
    }
}

/// The rewrites of the list move `name` over `src`, each rendered on its own.
fn list(format: &CFamily, name: &str, src: &str) -> Vec<String> {
    let doc = format.parse(src.as_bytes()).expect("parses");
    let m = format
        .list_moves()
        .iter()
        .find(|m| m.name == name)
        .expect("a move of that name");
    (m.changes)(&doc)
        .iter()
        .map(|s| {
            let mut out = Vec::new();
            s.render(src.as_bytes(), &mut out);
            String::from_utf8(out).expect("utf-8")
        })
        .collect()
}

/// Every rewrite of the list move `name` applied at once.
fn all_of(format: &CFamily, name: &str, src: &str) -> String {
    let doc = format.parse(src.as_bytes()).expect("parses");
    let m = format.list_moves().iter().find(|m| m.name == name).unwrap();
    let changes = (m.changes)(&doc);
    let mut out = Vec::new();
    Splices::union(&changes).render(src.as_bytes(), &mut out);
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn unpreprocessed_files_keep_their_preprocessor_lines_as_nodes() {
    let input = fixture("unpreprocessed.c");
    let doc = round_trip(&C, &input);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    assert_kinds(
        &doc.tree,
        &[
            "preproc_include",
            "preproc_function_def",
            "preproc_def",
            "preproc_if",
            "preproc_elif",
            "preproc_else",
            "preproc_ifdef",
            "comment",
            "function_definition",
        ],
    );
    // No grammar error (its names come from its headers).
    assert!(C.gate_allowance(&input).is_some_and(|a| a[0] == 0));
}

#[test]
fn preprocessed_gnu_c_reads_without_errors() {
    let input = fixture("gnu.i");
    let doc = round_trip(&C, &input);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    // Line markers, `__extension__`, attributes, statement expressions, `__typeof__`, asm.
    assert_kinds(
        &doc.tree,
        &[
            "preproc_call",
            "attribute_specifier",
            "compound_statement",
            "gnu_asm_expression",
            "macro_type_specifier",
        ],
    );
    assert!(C.gate(&input));
}

#[test]
fn cpp_reads_templates_classes_namespaces_and_lambdas() {
    let input = fixture("sample.cpp");
    let doc = round_trip(&CPP, &input);
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    assert_kinds(
        &doc.tree,
        &[
            "template_declaration",
            "namespace_definition",
            "class_specifier",
            "lambda_expression",
            "field_initializer_list",
            "alias_declaration",
        ],
    );
    // No grammar error; `std` and `vector` are the only names <vector> declares for it.
    assert_eq!(CPP.gate_allowance(&input), Some(vec![0, 2]));
    // C's grammar does not read it.
    assert!(C.gate_allowance(&input).is_some_and(|a| a[0] > 0));
}

#[test]
fn the_gate_allows_the_inputs_own_errors_and_no_more() {
    let input = b"int f(void) { return 1 +; }\nint g;\n";
    let allowance = C
        .gate_allowance(input)
        .expect("a counting gate never switches off");
    assert_eq!(allowance, [1, 0]);
    assert!(!C.gate(input));
    // The broken function without its error, with it alone, and with a second error.
    for (candidate, counts) in [
        ("int f(void) { return 1; }\nint g;\n", Some(vec![0, 0])),
        ("int f(void) { return 1 +; }\n", Some(vec![1, 0])),
        ("int f(void) { return 1 +; }\nint g\n", None),
        ("int f(void) { return 1 +; }\nint g = ;\n", None),
    ] {
        assert_eq!(
            C.gate_counts(candidate.as_bytes(), &allowance),
            counts,
            "{candidate}"
        );
    }
}

#[test]
fn function_bodies_become_prototypes_and_mains_empty() {
    let src = "struct S { int a; };\nint used(int x) { return x + 1; }\nint main(void) { return used(2); }\n";
    assert_eq!(
        list(&C, "body-to-decl", src),
        [
            "struct S { int a; };\nint used(int x) ;\nint main(void) { return used(2); }\n",
            "struct S { int a; };\nint used(int x) { return x + 1; }\nint main(void) {}\n"
        ]
    );
    // An empty main is left alone.
    assert_eq!(
        list(&C, "body-to-decl", "int main(void) {}"),
        Vec::<String>::new()
    );
    // A constructor's member initializers go with its body.
    let src = "struct P { int x; P(int a) : x(a) { x++; } };";
    assert_eq!(
        list(&CPP, "body-to-decl", src),
        ["struct P { int x; P(int a) ; };"]
    );
    // A member defined outside its class goes whole (its class declares it), with its
    // template header.
    let src = "struct A { void f(); A &operator=(A &&); };\n\
               void A::f() { g(); }\n\
               inline A &A::operator=(A &&) { return *this; }\n\
               template <class T> struct B { template <class U> void h(U); };\n\
               template <class T> template <class U> void B<T>::h(U) { g(); }\n";
    assert_eq!(
        all_of(&CPP, "body-to-decl", src),
        "struct A { void f(); A &operator=(A &&); };\n\n\n\
         template <class T> struct B { template <class U> void h(U); };\n\n"
    );
    // An explicitly instantiated template needs its definition.
    let src = "template <class T> T f(T x) { return x; }\ntemplate int f<int>(int);\ntemplate <class T> T g(T x) { return x; }\n";
    assert_eq!(
        list(&CPP, "body-to-decl", src),
        [src.replace("T g(T x) { return x; }", "T g(T x) ;")]
    );
    // C++ needs the bodies of constexpr functions and of those whose return type is deduced.
    let src = "template <class T> constexpr T sq(T x) { return x * x; }\n\
               auto f() { return 1; }\n\
               static consteval int h(int a) { return a; }\n\
               inline int g() { return 2; }\n";
    assert_eq!(
        list(&CPP, "body-to-decl", src),
        [src.replace("inline int g() { return 2; }", "inline int g() ;")]
    );
}

#[test]
fn unused_declarations_are_listed_outermost_first() {
    // Worked out by hand: `T` and `unused_var` are named nowhere else; `S` is (in main), and
    // its field `b` stays though nothing names it (an initializer `{1, 2}` fills fields by
    // position); `helper` calls itself only; `used` and `main` stay.
    let src = "typedef int T;\n\
               struct S { int a; int b; };\n\
               static int unused_var;\n\
               static int helper(int n) { return n ? helper(n - 1) : 0; }\n\
               int used(int x) { return x + 1; }\n\
               int main(void) { struct S s; s.a = 1; return used(s.a); }\n";
    assert_eq!(
        all_of(&C, "unused-decl", src),
        "\n\
         struct S { int a; int b; };\n\
         \n\
         \n\
         int used(int x) { return x + 1; }\n\
         int main(void) { struct S s; s.a = 1; return used(s.a); }\n"
    );
    assert_eq!(list(&C, "unused-decl", src).len(), 3);
    // A prototype and its definition are one function: both are unused together.
    let src = "int f(int);\nint f(int a) { return a; }\nint main(void) { return 0; }\n";
    assert_eq!(
        all_of(&C, "unused-decl", src),
        "\n\nint main(void) { return 0; }\n"
    );
    // C++: operators, conversions and destructors are used where no name says so; a
    // specialization uses its template's name and declares none, so the template is used
    // even where nothing else names it, and the specialization is not listed.
    let src = "struct A { bool operator==(const A &) const; operator bool() const; ~A(); void unused(); };\n\
               template <class T> struct H { T v; };\n\
               template <> struct H<int> { int v; };\n\
               int main() { A a; H<int> h; return (a == a) + h.v; }\n";
    assert_eq!(
        all_of(&CPP, "unused-decl", src),
        src.replace("void unused();", "")
    );
    let src = "template <class T> struct H { T v; };\n\
               template <class T> struct H<T *> { int v; };\n\
               int main() { return 0; }\n";
    assert_eq!(list(&CPP, "unused-decl", src), Vec::<String>::new());
    // An enumerator goes with its comma; an enum member nothing names is unused.
    let src = "enum E { A, B, C };\nint main(void) { return A + C; }\n";
    assert_eq!(
        all_of(&C, "unused-decl", src),
        "enum E { A,  C };\nint main(void) { return A + C; }\n"
    );
    let src = "enum E { A, B };\nint main(void) { return A; }\n";
    assert_eq!(
        all_of(&C, "unused-decl", src),
        "enum E { A };\nint main(void) { return A; }\n"
    );
    // libstdc++'s atomic_base.h: an attribute between a declarator and its `=`, which
    // tree-sitter-cpp cannot place, is left out of its parse, so the method reads as it is
    // (before, as a declaration with an error, then a function `do` and a prototype of
    // `while`), and nothing calls it.
    let src = "struct S {\n  void clear(int m) noexcept\n  {\n    int b __attribute__ ((__unused__))\n = m & 3;\n    do { g(); } while (false);\n    h(m);\n  }\n};\nS s;\n";
    // (`s` is unused too.)
    assert_eq!(all_of(&CPP, "unused-decl", src), "struct S {\n  \n};\n\n");
    // A declaration tree-sitter misread (a word it does not know between the declarator and
    // its `=`: it reads `q` as the declared name) is not listed.
    let src = "void f() {\n  int b alignas(4) = q;\n}\nint main() { f(); }\n";
    let doc = CPP.parse(src.as_bytes()).unwrap();
    assert!(doc.tree.nodes().any(|n| doc.tree.label(n) == "ERROR"));
    assert_eq!(list(&CPP, "unused-decl", src), Vec::<String>::new());
    // A friend declaration only grants access: it stays, also in a template.
    let src = "class E {\n  template<typename T> friend E f(T);\n  friend void g(E);\n  void h();\npublic:\n  E();\n};\nvoid g(E) {}\nint main() { E e; g(e); }\n";
    assert_eq!(
        all_of(&CPP, "unused-decl", src),
        src.replace("void h();", "")
    );
    // A name in a macro's body is a use.
    let src = "int g(void);\n#define CALL g()\nint main(void) { return CALL; }\n";
    assert_eq!(list(&C, "unused-decl", src), Vec::<String>::new());
}

#[test]
fn a_declaration_goes_with_every_statement_that_names_it() {
    let src = "typedef int T;\n\
               T f(void);\n\
               int g(void) { int y = 2; T x = 0; return y; }\n\
               int main(void) { return g(); }\n";
    let lists = list(&C, "decl-with-uses", src);
    // `T` with its prototype and the local `x`; `g` with its call's statement in main; the
    // local `y` (declared nowhere else) with its `return`. `f` and `x` have no use, and
    // `main` is never listed.
    assert_eq!(
        lists,
        [
            "\n\nint g(void) { int y = 2;  return y; }\nint main(void) { return g(); }\n",
            "typedef int T;\nT f(void);\n\nint main(void) {  }\n",
            "typedef int T;\nT f(void);\nint g(void) {  T x = 0;  }\nint main(void) { return g(); }\n",
        ]
    );
}

#[test]
fn what_goes_with_a_declaration_takes_the_uses_of_what_it_declared() {
    // Deleting `struct S` deletes `use` (whose parameter names it) and the local `s`; with
    // them go the call of `use` and every statement that names `s`. `p` and the member `a`
    // are declared only in what goes. `struct T` and `t` stay.
    let src = "struct S { int a; };\n\
               struct T { int b; };\n\
               void use(struct S *p) { p->a = 1; }\n\
               int main(void) {\n  struct S s;\n  struct T t;\n  use(&s);\n  t.b = s.a;\n  return t.b;\n}\n";
    let lists = list(&C, "decl-with-uses", src);
    assert_eq!(
        lists[0],
        ";\nstruct T { int b; };\n\nint main(void) {\n  \n  struct T t;\n  \n  \n  return t.b;\n}\n"
    );
    // A parameter declared in several functions is not followed from one of them: deleting
    // `g` leaves `h`'s statement on its own `q`.
    let src = "int g(int q) { return q; }\nint h(int q) { q = 1; return q; }\nint main(void) { return g(1) + h(2); }\n";
    assert_eq!(
        list(&C, "decl-with-uses", src)[0],
        "\nint h(int q) { q = 1; return q; }\nint main(void) {  }\n"
    );
}

/// The renamings' names: the texts of the name tokens some occurrence of which is bound.
fn renamable(format: &CFamily, src: &str) -> Vec<String> {
    let doc = format.parse(src.as_bytes()).expect("parses");
    let lex = format.lexicon(&doc).expect("a lexicon");
    let mut names: Vec<String> = lex
        .tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Name { bound: true, .. }))
        .map(|t| src[t.span.clone()].to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn a_self_contained_file_owns_its_names_but_main_and_the_implementations() {
    // GNU C's implicit int: tree-sitter reads `*q;` as a statement and `h(c)` as a type and a
    // parenthesized declarator, so neither `q` nor `h` is bound in its reading.
    let src = "int *a() __attribute__((__alloc_size__(1)));\n*q;\nh(c) { q = a(1); return __builtin_object_size(q, 0); }\nint main(void) { return 0; }\n";
    assert_eq!(renamable(&C, src), ["a", "c", "h", "q"]);
    // With an #include, only what the file binds: `puts` is the library's.
    let src = "#include <stdio.h>\nstatic int v;\nint main(void) { puts(\"x\"); return v; }\n";
    assert_eq!(renamable(&C, src), ["v"]);
}

#[test]
fn namespaces_are_emptied_one_declaration_at_a_time_and_extern_goes_with_its_declaration() {
    // `v1` is never named (an inline namespace), yet `f` in it is used through `n::`.
    let src = "namespace n { inline namespace v1 { int f(); int g(); } }\n\
               extern \"C++\" inline void t() {}\n\
               int main() { return n::f(); }\n";
    assert_eq!(
        all_of(&CPP, "unused-decl", src),
        "namespace n { inline namespace v1 { int f();  } }\n\nint main() { return n::f(); }\n"
    );
}

mod cxx;
mod scope;

#[test]
fn the_blanks_inside_an_empty_pair_of_brackets_may_go() {
    // `{  }` and `(  )` are leaves of tree-sitter's tree; their blanks are spaces all the same,
    // and nothing joins across them.
    let src = "struct{  }d;\nint f(  ) { return 0; }\n";
    let doc = C.parse(src.as_bytes()).expect("parses");
    let lex = C.lexicon(&doc).expect("a lexicon");
    let spaces: Vec<(&str, &str)> = lex
        .tokens
        .iter()
        .filter_map(|t| match t.kind {
            TokenKind::Space { min } => Some((&src[t.span.clone()], min)),
            _ => None,
        })
        .collect();
    let at = |offset: usize| {
        lex.tokens.iter().any(|t| {
            t.span == (offset..offset + 2) && matches!(t.kind, TokenKind::Space { min: "" })
        })
    };
    assert!(at(src.find("{  }").unwrap() + 1), "{spaces:?}");
    assert!(at(src.find("(  )").unwrap() + 1), "{spaces:?}");
}

#[test]
fn a_deleted_access_specifier_takes_its_colon_in_cpp() {
    // tree-sitter-cpp's `access_specifier` is the word alone; its `:` is in the gap after it.
    let src = "class f {\npublic:\nprivate:\n int x;\n};\n";
    let doc = round_trip(&CPP, src.as_bytes());
    let tree = &doc.tree;
    let public = tree
        .nodes()
        .find(|&n| tree.label(n) == "access_specifier")
        .expect("an access specifier");
    assert_eq!(tree.text(public), b"public");
    let mut out = Vec::new();
    CPP.render(&doc, &Edits::new().with(public, Edit::Delete), &mut out);
    let out = String::from_utf8(out).unwrap();
    assert!(CPP.gate(out.as_bytes()), "{out}");
    assert_eq!(out.matches(':').count(), 1, "{out}");
}

/// The slice's parts of `src` as text, each with the parts it needs (by index) and whether it
/// is fixed.
fn parts(format: &CFamily, src: &str) -> Vec<(String, Vec<usize>, bool)> {
    let doc = format.parse(src.as_bytes()).expect("parses");
    let s = crate::slices::slices(&doc).expect("parts");
    (s.parts.iter().zip(&s.needs).zip(&s.fixed))
        .map(|((p, needs), &fixed)| (src[p.clone()].to_string(), needs.clone(), fixed))
        .collect()
}

#[test]
fn the_slice_cuts_the_file_into_declarations_that_need_what_they_name() {
    let src = "#include <stdio.h>\n\
               typedef int T;\n\
               struct S { T a; };\n\
               static int unused(void) { return 1; }\n\
               T g(struct S *s) { return s->a; }\n\
               int main(void) { struct S s = {0}; return g(&s); }\n";
    let own = |s: &str| s.to_string();
    assert_eq!(
        parts(&C, src),
        [
            (own("#include <stdio.h>\n"), vec![], true),
            (own("typedef int T;"), vec![], false),
            (own("struct S { T a; }"), vec![1], false),
            (own("static int unused(void) { return 1; }"), vec![], false),
            (own("T g(struct S *s) { return s->a; }"), vec![1, 2], false),
            (
                own("int main(void) { struct S s = {0}; return g(&s); }"),
                vec![2, 4],
                true
            ),
        ]
    );
    // Namespaces, `extern "C"` blocks and `#if` blocks hold parts; an `extern "C"`
    // declaration on its own is one, and a comment is a part that may go.
    let src = "namespace n {\n  int f();\n  namespace m { int g() { return f(); } }\n}\n\
               extern \"C\" { int h(); }\n\
               extern \"C\" int k();\n\
               #if X\n// note\nint u;\n#endif\n";
    assert_eq!(
        parts(&CPP, src),
        [
            (own("int f();"), vec![], false),
            (own("int g() { return f(); }"), vec![0], false),
            (own("int h();"), vec![], false),
            (own("extern \"C\" int k();"), vec![], false),
            (own("// note"), vec![], false),
            (own("int u;"), vec![], false),
        ]
    );
}

/// `src` with every blank of the lexicon at its smallest.
fn blanks_at_their_least(format: &CFamily, src: &str) -> String {
    let doc = format.parse(src.as_bytes()).expect("parses");
    let lex = format.lexicon(&doc).expect("a lexicon");
    let mut s = Splices::default();
    for t in &lex.tokens {
        if let TokenKind::Space { min } = t.kind {
            assert!(s.add(t.span.clone(), min.as_bytes()), "overlapping blanks");
        }
    }
    let mut out = Vec::new();
    s.render(src.as_bytes(), &mut out);
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn line_breaks_go_but_around_preprocessor_lines_and_after_line_comments() {
    let src = "#include <a.h>\n#define N \\\n  2\nint\nf(void)\n{\n  return N; // x\n  /* y */\n}\n\n#if 1\nint g;\n#endif\n";
    assert_eq!(
        blanks_at_their_least(&C, src),
        // A line break between two words becomes a space; the ones that end a directive (its
        // continued lines with it), that a directive starts after, or that end a line comment
        // stay, and so do the blanks around a `\` that continues a line (`#define N2`
        // otherwise). The blank line before `#if` is `tidy`'s.
        "#include<a.h>\n#define N \\\n  2\nint f(void){return N;// x\n/* y */}\n\n#if 1\nint g;\n#endif\n"
    );
    // The same with CRLF line ends.
    assert_eq!(
        blanks_at_their_least(&C, "#define M \\\r\n  3\r\nint\r\ny;\r\n"),
        "#define M \\\r\n  3\r\nint y;"
    );
}

#[test]
fn an_include_path_is_no_literal_to_shrink_but_other_strings_are() {
    let src = "#include \"local.h\"\nconst char *s = \"text\";\n";
    let doc = C.parse(src.as_bytes()).expect("parses");
    let lex = C.lexicon(&doc).expect("a lexicon");
    let literals: Vec<&str> = lex
        .tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Literal { .. }))
        .map(|t| &src[t.span.clone()])
        .collect();
    assert_eq!(literals, ["\"text\""]);
}

#[test]
fn the_blank_nodes_are_the_comments() {
    let src = "/* head */\n#define N 1 // n\nint a; // x\n#define M 2\nchar/**/*s = \"/* no */\";\nint/**/b;\n";
    let doc = C.parse(src.as_bytes()).expect("parses");
    let tree = &doc.tree;
    let blanks = C.blanks(&doc);
    let texts: Vec<&str> = (blanks.iter())
        .map(|&n| std::str::from_utf8(tree.text(n)).unwrap())
        .collect();
    assert_eq!(texts, ["/* head */", "// x", "/**/"]);
    let edits: Edits = blanks.into_iter().map(|n| (n, Edit::Delete)).collect();
    let mut out = Vec::new();
    C.render(&doc, &edits, &mut out);
    // `// n` is part of the `#define`; the line break after `// x` stays, so `#define M`
    // still starts its line; `int/**/b` keeps its comment, which holds two words apart.
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "#define N 1 // n\nint a; \n#define M 2\nchar*s = \"/* no */\";\nint/**/b;\n"
    );
}
