//! End-to-end test of `whittle` on C, with the real `gcc-12` as the oracle: a compiler crash
//! given on the command line with `--expect`, as docs/c.md shows it.

use crate::util::{Case, read, stderr};

/// A small translation unit with the function of GCC PR 113013 among others (the bench's Lua
/// case in miniature): `gcc-12 -O2` dies in the objsz pass. Debian's gcc-12 12.2.0 is the
/// machine's `gcc`, and the bug was fixed after it.
const BOX_C: &str = r#"/* GCC PR 113013 among other functions. */
typedef unsigned long size_t;
struct point { int x, y; };
static int scale(struct point *p, int k) { return p->x * k + p->y; }
int table[16];
int sum(int n)
{
  int s = 0;
  for (int i = 0; i < n && i < 16; i++)
    s += table[i];
  return s;
}
struct short_box { short x; } the_box;
void *make_box () __attribute__((__alloc_size__(1)));
struct short_box *box_ptr;
size_t box_size (void)
{
  box_ptr = make_box (the_box);
  return __builtin_dynamic_object_size (box_ptr, 0);
}
int main(void)
{
  struct point p = {1, 2};
  return scale(&p, 3) + sum(4);
}
"#;

const COMPILE: &str = "gcc-12 -std=gnu99 -O2 -w -c -o /dev/null";
const ICE: &str = "internal compiler error: in fold_convert_loc";

#[test]
fn a_compiler_crash_given_with_expect_reduces_to_the_crashing_function() {
    let case = Case::new();
    let input = case.write("box.c", BOX_C);
    let before = case.run(
        "gcc-12",
        &["-std=gnu99", "-O2", "-w", "-c", "-o", "/dev/null", "box.c"],
    );
    assert!(
        String::from_utf8_lossy(&before.stderr).contains(ICE),
        "gcc-12 crashes on the input: {}",
        String::from_utf8_lossy(&before.stderr)
    );
    // A fixed timeout: the count of tests must not depend on how loaded the machine is.
    let out = case.whittle(&[
        "reduce",
        "box.c",
        "--test",
        &format!("{COMPILE} {{}}"),
        "--expect",
        ICE,
        "--expect",
        "during GIMPLE pass: objsz",
        "-j",
        "2",
        "--timeout",
        "30",
        "--report",
        "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(&input), BOX_C, "the input is never modified");
    let reduced = read(&case.path("box.reduced.c"));
    // The other functions, the typedef, the struct with two fields and the comment are gone;
    // the builtin the crash is about stays.
    for gone in ["scale", "sum", "table", "main", "point", "typedef", "/*"] {
        assert!(!reduced.contains(gone), "{gone:?} is left:\n{reduced}");
    }
    assert!(
        reduced.contains("__builtin_dynamic_object_size"),
        "{reduced}"
    );
    assert!(reduced.len() < BOX_C.len() / 4, "{reduced}");
    // It still crashes gcc-12 the same way.
    let after = case.run(
        "gcc-12",
        &[
            "-std=gnu99",
            "-O2",
            "-w",
            "-c",
            "-o",
            "/dev/null",
            "box.reduced.c",
        ],
    );
    assert!(
        String::from_utf8_lossy(&after.stderr).contains(ICE),
        "{reduced}"
    );
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    assert_eq!(json["format"], "c");
    assert_eq!(json["gate"], "on");
    assert_eq!(json["expect"][0], ICE);
    // The declaration moves ran, before the tree moves (`main` is never one of their
    // candidates; the tree moves deleted it).
    assert!(
        json["tests_by_move"]["unused-decl"].as_u64().unwrap() > 0,
        "{}",
        json["tests_by_move"]
    );
}
