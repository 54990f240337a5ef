//! The size of an input or output beyond its bytes: tree nodes by whittle's own parser of the
//! case's format, and lexical tokens.

/// Whether tokens are counted for the format: not for PDF, whose objects whittle copies with
/// their filters and object streams (a lexical count of compressed bytes measures nothing). Also
/// applied to results saved before the rule.
pub(crate) fn counts_tokens(lang: &str) -> bool {
    lang != "pdf"
}

/// The number of lexical tokens of `bytes` in the format `lang`, the measure of the reduction
/// papers that count tokens (Perses, treereduce): for Python and JavaScript the leaves of the
/// tree-sitter grammar's concrete tree (for C and C++ too; identifiers, literals, keywords, punctuation; comments
/// count as one token each), for the other text formats the words (maximal runs of ASCII
/// letters, digits and `_`, and of non-ASCII bytes) and each other byte that is not white space.
/// `None` for PDF ([`counts_tokens`]) and when a grammar cannot be loaded.
pub(crate) fn tokens(lang: &str, bytes: &[u8]) -> Option<u64> {
    if !counts_tokens(lang) {
        return None;
    }
    let language: tree_sitter::Language = match lang {
        "python" => tree_sitter_python::LANGUAGE.into(),
        "javascript" => tree_sitter_javascript::LANGUAGE.into(),
        "c" => tree_sitter_c::LANGUAGE.into(),
        "cpp" => tree_sitter_cpp::LANGUAGE.into(),
        _ => return Some(lexical_tokens(bytes)),
    };
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).ok()?;
    let tree = parser.parse(bytes, None)?;
    let mut cursor = tree.walk();
    let mut count = 0;
    // Depth-first over every node; a leaf that is not a zero-width stand-in (`MISSING`) is a token.
    loop {
        let node = cursor.node();
        if node.child_count() == 0 && node.end_byte() > node.start_byte() {
            count += 1;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Some(count);
            }
        }
    }
}

/// Words and other non-blank bytes: the token count of a format without a grammar here.
pub(crate) fn lexical_tokens(bytes: &[u8]) -> u64 {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || !b.is_ascii();
    let mut count = 0;
    let mut in_word = false;
    for &b in bytes {
        if word(b) {
            count += u64::from(!in_word);
            in_word = true;
        } else {
            in_word = false;
            count += u64::from(!b.is_ascii_whitespace());
        }
    }
    count
}

/// The number of tree nodes of `bytes` by whittle's parser of the format `lang` (`None`: the
/// parser refuses it, or the format is not one whittle parses into a tree here).
pub(crate) fn tree_nodes(lang: &str, bytes: &[u8]) -> Option<u64> {
    use whittle_core::Format;
    let format: &dyn Format = match lang {
        "xml" => &whittle_xml::Xml,
        "python" => &whittle_python::Python,
        "javascript" => &whittle_javascript::JavaScript,
        "c" => &whittle_c::C,
        "cpp" => &whittle_c::CPP,
        "pdf" => &whittle_pdf::Pdf,
        _ => return None,
    };
    format.parse(bytes).ok().map(|d| d.tree.len() as u64)
}

#[cfg(test)]
mod tests;
