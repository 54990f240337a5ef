use crate::size::{lexical_tokens, tokens, tree_nodes};

#[test]
fn tree_nodes_are_counted_by_whittles_own_parsers() {
    // <a><b/></a>: the root element and its child, at least.
    let xml = tree_nodes("xml", b"<a><b/></a>").unwrap();
    let bigger = tree_nodes("xml", b"<a><b/><c/><d/></a>").unwrap();
    assert!(bigger > xml && xml >= 2, "{xml} {bigger}");
    let py = tree_nodes("python", b"x = 1\n").unwrap();
    let js = tree_nodes("javascript", b"var x = 1;\n").unwrap();
    assert!(py > 1 && js > 1);
    assert_eq!(tree_nodes("pdf", b"not a pdf"), None);
    assert_eq!(tree_nodes("lines", b"a\nb\n"), None);
}

#[test]
fn tokens_are_grammar_leaves_for_code_and_words_and_symbols_otherwise() {
    // Counted by hand: x = f ( 1 )
    assert_eq!(tokens("python", b"x = f(1)\n"), Some(6));
    // A comment is one token: # c, pass
    assert_eq!(tokens("python", b"# c\nif a:\n    pass\n"), Some(5));
    // let a = " hi " ; (a string is its quotes and its fragment)
    assert_eq!(tokens("javascript", b"let a = \"hi\";\n"), Some(7));
    assert_eq!(tokens("javascript", b""), Some(0));
    // < a b = " x & y " > t t < / a >
    assert_eq!(tokens("xml", b"<a b=\"x&y\">t  t</a>\n"), Some(16));
    // A word runs over digits, `_` and non-ASCII bytes: `caf\xc3\xa9_2` is one.
    assert_eq!(lexical_tokens(b" caf\xc3\xa9_2 /Type\n"), 3);
    assert_eq!(lexical_tokens(b" \n\t "), 0);
    // PDF objects sit in compressed streams: not counted.
    assert_eq!(tokens("pdf", b"%PDF-1.7\n1 0 obj\n"), None);
}
