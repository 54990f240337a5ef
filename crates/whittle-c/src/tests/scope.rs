//! The gate's count of names used and not declared, and of the member declarations C forbids.

use super::*;

/// Whether `candidate` passes the gate of `format` for an input without errors or undeclared
/// names.
fn passes(format: &CFamily, candidate: &str) -> bool {
    format.gate_counts(candidate.as_bytes(), &[0, 0]).is_some()
}

#[test]
fn a_candidate_may_not_use_a_name_it_no_longer_declares() {
    let input = "struct S { int a; int b; };\ntypedef int I;\nint main(void) { struct S s; I x = 0; s.a = x; return s.b; }\n";
    assert_eq!(C.gate_allowance(input.as_bytes()), Some(vec![0, 0]));
    assert!(passes(&C, input));
    // The member `b` gone while `s.b` is read; the typedef gone while `I` names a type.
    assert!(!passes(&C, &input.replace(" int b;", "")));
    assert!(!passes(&C, &input.replace("typedef int I;", "")));
    // The local gone while it is assigned.
    assert!(!passes(&C, &input.replace("I x = 0;", "")));
    // Everything that named them gone too.
    assert!(passes(
        &C,
        "struct S { int a; };\nint main(void) { struct S s; s.a = 0; return 0; }\n"
    ));
}

#[test]
fn what_the_grammar_could_not_read_declares_nothing() {
    // `@ x @;` is an `ERROR` holding the word `x`: `int x;` gone, `x` is undeclared.
    let input = "int x;\n@ x @;\nint f(void) { return x; }\n";
    let allowance = C.gate_allowance(input.as_bytes()).expect("counts");
    assert_eq!(allowance[1], 0, "{allowance:?}");
    // The counts of a candidate that passes are what the allowance of that file would be.
    assert_eq!(
        C.gate_counts(input.as_bytes(), &allowance),
        Some(allowance.clone())
    );
    let without = input.replace("int x;", "");
    assert_eq!(C.gate_counts(without.as_bytes(), &allowance), None);
}

#[test]
fn a_constexpr_function_that_returns_a_value_keeps_a_return() {
    let input = "constexpr int f(int a) { int b = a; return b; }\nconstexpr void g() {}\n";
    assert!(passes(&CPP, input));
    assert!(!passes(&CPP, &input.replace("return b;", "")));
    assert!(passes(
        &CPP,
        &input.replace("return b;", "").replace("int f", "void f")
    ));
}

#[test]
fn a_specialization_needs_its_template() {
    let input = "template <class T> struct H { T v; };\ntemplate <> struct H<int> { int v; };\n";
    assert!(passes(&CPP, input));
    // "`H` is not a class template": the primary gone, the specialization left.
    assert!(!passes(&CPP, "template <> struct H<int> { int v; };\n"));
    assert!(passes(&CPP, "template <class T> struct H { T v; };\n"));
    // Also where the names are reserved, as all of libstdc++'s own are; GCC's own types and
    // builtins are not declared anywhere.
    let input =
        "template <class T> struct __or_ { T v; };\ntemplate <> struct __or_<int> { int v; };\n";
    assert!(passes(&CPP, input));
    assert!(!passes(&CPP, "template <> struct __or_<int> { int v; };\n"));
    assert!(passes(
        &CPP,
        "__int128 f(__builtin_va_list v) { return __builtin_expect(0, 0); }\n"
    ));
}

#[test]
fn c_keeps_tags_members_and_ordinary_names_apart() {
    // In C the tag `S` is not a type name, and a member is not a variable.
    assert!(!passes(
        &C,
        "struct S { int a; };\nint main(void) { S s; return 0; }\n"
    ));
    assert!(!passes(
        &C,
        "struct S { int a; };\nint main(void) { return a; }\n"
    ));
    // In C++ a class's name is a type, and a member is named in its class's functions.
    assert!(passes(
        &CPP,
        "struct S { int a; int f() { return a; } };\nint main() { S s; return s.f(); }\n"
    ));
}

#[test]
fn an_incomplete_type_an_implicit_call_and_the_implementations_names_need_no_declaration() {
    // A pointer to a struct never defined, a function parameter of one, a forward declaration.
    assert!(passes(
        &C,
        "struct S;\nint f(struct S *p);\nint main(void) { struct S *p = 0; return p != 0; }\n"
    ));
    // But an object of it needs the definition, and so does a compound literal.
    assert!(!passes(&C, "int main(void) { struct S s; return 0; }\n"));
    assert!(!passes(
        &C,
        "int main(void) { return sizeof (struct S); }\n"
    ));
    // C calls an undeclared function (GCC 12 accepts it with a warning); C++ does not.
    assert!(passes(&C, "int main(void) { return g(1); }\n"));
    assert!(!passes(&CPP, "int main() { return g(1); }\n"));
    // GNU C's implicit `int`: `*q;` declares `q`, `h(c) {…}` defines `h` with a parameter `c`.
    assert!(passes(
        &C,
        "h(c) { return c; }\n*q;\nint main(void) { return h(1) + *q; }\n"
    ));
    // Builtins, predefined macros and attribute names.
    assert!(passes(
        &C,
        "__attribute__((noipa)) int main(void) { if (__CHAR_BIT__ != 8) __builtin_abort(); return 0; }\n"
    ));
}

#[test]
fn the_member_declarations_c_forbids_are_counted() {
    // A named bit-field of width 0 (only an unnamed one may have it, which tree-sitter-c does
    // not read).
    assert!(!passes(&C, "struct S { int a:0; int b; };\n"));
    assert!(passes(&C, "struct S { int a:1; int b; };\n"));
    // A flexible array member must come last, after a named member.
    assert!(!passes(&C, "struct S { char c[]; };\n"));
    assert!(!passes(&C, "struct S { char c[]; int n; };\n"));
    assert!(passes(&C, "struct S { int n; char c[]; };\n"));
}

#[test]
fn a_file_with_includes_may_use_as_many_undeclared_names_as_the_input() {
    let input = b"#include <stdio.h>\nint main(void) { FILE *f = stdin; return getc(f); }\n";
    // `FILE` and `stdin` (the header's); `getc` is a call, which C allows undeclared.
    let allowance = C.gate_allowance(input).expect("a counting gate");
    assert_eq!(allowance, [0, 2]);
    // Without `FILE`, one undeclared name is left: `stdin`.
    let fewer = b"#include <stdio.h>\nint main(void) { return getc(stdin); }\n";
    assert_eq!(C.gate_counts(fewer, &allowance), Some(vec![0, 1]));
    assert_eq!(C.gate_allowance(fewer), Some(vec![0, 1]));
    let more = b"#include <stdio.h>\nint main(void) { FILE *f = stdin; return getc(f) + x; }\n";
    assert_eq!(C.gate_counts(more, &allowance), None);
}
