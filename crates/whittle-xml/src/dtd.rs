//! The checks of the gate that quick-xml leaves out because it does not parse them: the XML
//! declaration and the DOCTYPE with its internal subset (quick-xml skips a DTD, assuming it is
//! well formed).
//!
//! The grammar is the one of XML 1.0 (fifth edition), productions 23–32 for the declaration and
//! 28–83 for the DTD. Everything here is iterative: content models nest by an explicit stack.

use crate::encoding::is_ws;
use crate::gate::{check_ref_syntax, is_name};
use std::collections::HashSet;

/// What the DTD says about entities.
#[derive(Debug, Default)]
pub(crate) struct Dtd {
    /// General entities declared in the internal subset.
    pub(crate) entities: HashSet<String>,
    /// Whether the internal subset is all there is (no external subset, no parameter-entity
    /// references): then every referenced entity must be declared in it.
    pub(crate) complete: bool,
}

/// A cursor over the text of a declaration.
struct Cur<'a> {
    s: &'a str,
    p: usize,
}

type Check<T = ()> = Result<T, String>;

fn err<T>(what: &str) -> Check<T> {
    Err(what.to_string())
}

impl<'a> Cur<'a> {
    fn new(s: &'a str) -> Cur<'a> {
        Cur { s, p: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.p).copied()
    }

    fn rest(&self) -> &'a str {
        &self.s[self.p..]
    }

    fn at_end(&self) -> bool {
        self.p >= self.s.len()
    }

    /// Skips white space; whether there was any.
    fn ws(&mut self) -> bool {
        let start = self.p;
        while self.peek().is_some_and(is_ws) {
            self.p += 1;
        }
        self.p > start
    }

    fn need_ws(&mut self, what: &str) -> Check {
        if self.ws() {
            Ok(())
        } else {
            err(&format!("white space needed {what}"))
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        let ok = self.rest().starts_with(lit);
        if ok {
            self.p += lit.len();
        }
        ok
    }

    fn expect(&mut self, c: u8, what: &str) -> Check {
        if self.peek() == Some(c) {
            self.p += 1;
            Ok(())
        } else {
            err(what)
        }
    }

    /// A token of name characters (not checked).
    fn token(&mut self) -> &'a str {
        let start = self.p;
        while self
            .peek()
            .is_some_and(|c| !is_ws(c) && !b"()|,?*+>\"'[]%;=<&/".contains(&c))
        {
            self.p += 1;
        }
        &self.s[start..self.p]
    }

    fn name(&mut self, what: &str) -> Check<&'a str> {
        let t = self.token();
        if is_name(t) {
            Ok(t)
        } else {
            err(&format!("invalid name {what}"))
        }
    }

    fn nmtoken(&mut self) -> Check<&'a str> {
        let t = self.token();
        // An Nmtoken is a name that may start with any name character.
        if !t.is_empty() && is_name(&format!("_{t}")) {
            Ok(t)
        } else {
            err("invalid name token")
        }
    }

    /// `S? = S?`
    fn eq(&mut self) -> Check {
        self.ws();
        self.expect(b'=', "`=` expected")?;
        self.ws();
        Ok(())
    }

    /// A quoted literal; returns its content.
    fn quoted(&mut self, what: &str) -> Check<&'a str> {
        let Some(q @ (b'"' | b'\'')) = self.peek() else {
            return err(&format!("{what} must be quoted"));
        };
        let body = &self.s[self.p + 1..];
        let Some(len) = body.bytes().position(|c| c == q) else {
            return err(&format!("{what} not closed"));
        };
        self.p += len + 2;
        Ok(&body[..len])
    }

    /// `[?*+]?`
    fn occurrence(&mut self) {
        if matches!(self.peek(), Some(b'?' | b'*' | b'+')) {
            self.p += 1;
        }
    }
}

/// The XML declaration `<?xml …?>` (the whole markup).
pub(crate) fn check_decl(raw: &str) -> Check {
    let inner = raw
        .strip_prefix("<?xml")
        .and_then(|r| r.strip_suffix("?>"))
        .ok_or("malformed XML declaration")?;
    let mut c = Cur::new(inner);
    c.need_ws("before `version`")?;
    if !c.eat("version") {
        return err("the XML declaration must start with `version`");
    }
    c.eq()?;
    let version = c.quoted("the version")?;
    let digits = version.strip_prefix("1.").unwrap_or_default();
    if digits.is_empty() || !digits.bytes().all(|d| d.is_ascii_digit()) {
        return err("unknown XML version: 1.0 or 1.1 expected");
    }
    let mut space = c.ws();
    if space && c.eat("encoding") {
        c.eq()?;
        let name = c.quoted("the encoding name")?;
        let ok = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !ok {
            return err("invalid encoding name");
        }
        space = c.ws();
    }
    if space && c.eat("standalone") {
        c.eq()?;
        if !matches!(c.quoted("standalone")?, "yes" | "no") {
            return err("standalone must be `yes` or `no`");
        }
        c.ws();
    }
    if !c.at_end() {
        return err("unexpected text in the XML declaration");
    }
    Ok(())
}

/// The body of a DOCTYPE: what quick-xml gives after `<!DOCTYPE` and white space, before `>`.
pub(crate) fn check_doctype(body: &str) -> Check<Dtd> {
    let mut c = Cur::new(body);
    c.name("in the DOCTYPE")?;
    let mut dtd = Dtd {
        complete: true,
        ..Dtd::default()
    };
    if c.ws() && matches!(c.peek(), Some(b'S' | b'P')) {
        external_id(&mut c, false)?;
        dtd.complete = false;
        c.ws();
    }
    if c.eat("[") {
        subset(&mut c, &mut dtd)?;
        c.ws();
    }
    if !c.at_end() {
        return err("unexpected text in the DOCTYPE");
    }
    Ok(dtd)
}

/// `SYSTEM S SystemLiteral | PUBLIC S PubidLiteral S SystemLiteral`; with `public_only`, the
/// system literal after a public one is optional (a notation's `PublicID`).
fn external_id(c: &mut Cur<'_>, public_only: bool) -> Check {
    if c.eat("SYSTEM") {
        c.need_ws("after SYSTEM")?;
        c.quoted("the system literal")?;
        return Ok(());
    }
    if !c.eat("PUBLIC") {
        return err("SYSTEM or PUBLIC expected");
    }
    c.need_ws("after PUBLIC")?;
    let quote = c.peek();
    let pubid = c.quoted("the public identifier")?;
    let pubid_char = |b: u8| {
        b.is_ascii_alphanumeric()
            || b" \r\n-()+,./:=?;!*#@$_%".contains(&b)
            || (b == b'\'' && quote == Some(b'"'))
    };
    if !pubid.bytes().all(pubid_char) {
        return err("invalid character in a public identifier");
    }
    let save = c.p;
    if c.ws() && matches!(c.peek(), Some(b'"' | b'\'')) {
        c.quoted("the system literal")?;
    } else if public_only {
        c.p = save;
    } else {
        return err("system literal expected after the public identifier");
    }
    Ok(())
}

/// The internal subset after `[`, up to and including `]`.
fn subset(c: &mut Cur<'_>, dtd: &mut Dtd) -> Check {
    let mut values = Vec::new();
    loop {
        c.ws();
        let rest = c.rest();
        if c.eat("]") {
            break;
        } else if c.eat("%") {
            c.name("of a parameter entity")?;
            c.expect(b';', "`;` expected after a parameter-entity reference")?;
            dtd.complete = false;
        } else if let Some(comment) = rest.strip_prefix("<!--") {
            let dashes = comment.find("--").ok_or("comment not closed")?;
            if !comment[dashes..].starts_with("-->") {
                return err("`--` in a comment");
            }
            c.p += 4 + dashes + 3;
        } else if let Some(pi) = rest.strip_prefix("<?") {
            let close = pi.find("?>").ok_or("processing instruction not closed")?;
            let body = &pi[..close];
            let target_len = body.bytes().position(is_ws).unwrap_or(body.len());
            let target = &body[..target_len];
            if !is_name(target) || target.eq_ignore_ascii_case("xml") {
                return err("processing instruction without a valid target");
            }
            c.p += 2 + close + 2;
        } else if c.eat("<!ELEMENT") {
            element_decl(c)?;
        } else if c.eat("<!ATTLIST") {
            attlist_decl(c)?;
        } else if c.eat("<!ENTITY") {
            entity_decl(c, dtd, &mut values)?;
        } else if c.eat("<!NOTATION") {
            c.need_ws("after <!NOTATION")?;
            c.name("of a notation")?;
            c.need_ws("after the notation name")?;
            external_id(c, true)?;
            end_decl(c)?;
        } else if c.at_end() {
            return err("internal subset not closed by `]`");
        } else {
            return err("unexpected text in the internal subset");
        }
    }
    // References in entity values must be well formed, and, in a complete DTD, declared.
    let known = if dtd.complete { Some(&*dtd) } else { None };
    for value in values {
        let mut rest = value;
        while let Some(amp) = rest.find('&') {
            rest = &rest[amp + 1..];
            let semi = rest
                .find(';')
                .ok_or("`&` that starts no reference in an entity value")?;
            check_ref_syntax(&rest[..semi])?;
            let name = &rest[..semi];
            if let Some(d) = known
                && !name.starts_with('#')
                && !is_predefined(name)
                && !d.entities.contains(name)
            {
                return err(&format!("undefined entity `&{name};`"));
            }
            rest = &rest[semi + 1..];
        }
    }
    Ok(())
}

/// The five entities every XML document knows.
pub(crate) fn is_predefined(name: &str) -> bool {
    matches!(name, "lt" | "gt" | "amp" | "apos" | "quot")
}

/// `S? >`
fn end_decl(c: &mut Cur<'_>) -> Check {
    c.ws();
    c.expect(b'>', "`>` expected at the end of a markup declaration")
}

/// `<!ELEMENT S Name S contentspec S? >`, after the keyword.
fn element_decl(c: &mut Cur<'_>) -> Check {
    c.need_ws("after <!ELEMENT")?;
    c.name("of an element declaration")?;
    c.need_ws("after the element name")?;
    if !(c.eat("EMPTY") || c.eat("ANY")) {
        content_model(c)?;
    }
    end_decl(c)
}

/// `Mixed | children`: a parenthesized content model.
fn content_model(c: &mut Cur<'_>) -> Check {
    c.expect(b'(', "EMPTY, ANY or `(` expected")?;
    c.ws();
    if c.eat("#PCDATA") {
        let mut names = 0;
        loop {
            c.ws();
            if c.eat(")") {
                break;
            }
            c.expect(b'|', "`|` or `)` expected in mixed content")?;
            c.ws();
            c.name("in mixed content")?;
            names += 1;
        }
        let star = c.eat("*");
        if names > 0 && !star {
            return err("mixed content with names must end with `)*`");
        }
        return Ok(());
    }
    // Element content: groups nest by an explicit stack of their separators.
    let mut groups: Vec<Option<u8>> = vec![None];
    let mut want_particle = true;
    loop {
        c.ws();
        if want_particle {
            if c.eat("(") {
                groups.push(None);
            } else {
                c.name("in a content model")?;
                c.occurrence();
                want_particle = false;
            }
            continue;
        }
        match c.peek() {
            Some(sep @ (b',' | b'|')) => {
                let Some(group) = groups.last_mut() else {
                    return err("unbalanced content model");
                };
                if group.is_some_and(|s| s != sep) {
                    return err("`,` and `|` mixed in one group");
                }
                *group = Some(sep);
                c.p += 1;
                want_particle = true;
            }
            Some(b')') => {
                c.p += 1;
                groups.pop();
                c.occurrence();
                if groups.is_empty() {
                    return Ok(());
                }
            }
            _ => return err("`,`, `|` or `)` expected in a content model"),
        }
    }
}

/// `<!ATTLIST S Name AttDef* S? >`, after the keyword.
fn attlist_decl(c: &mut Cur<'_>) -> Check {
    c.need_ws("after <!ATTLIST")?;
    c.name("of an attribute-list declaration")?;
    loop {
        let space = c.ws();
        if c.eat(">") {
            return Ok(());
        }
        if !space {
            return err("white space needed before an attribute definition");
        }
        c.name("of an attribute definition")?;
        c.need_ws("after the attribute name")?;
        if c.peek() == Some(b'(') {
            enumeration(c, false)?;
        } else {
            match c.token() {
                "CDATA" | "ID" | "IDREF" | "IDREFS" | "ENTITY" | "ENTITIES" | "NMTOKEN"
                | "NMTOKENS" => {}
                "NOTATION" => {
                    c.need_ws("after NOTATION")?;
                    enumeration(c, true)?;
                }
                _ => return err("unknown attribute type"),
            }
        }
        c.need_ws("before the default declaration")?;
        if c.eat("#REQUIRED") || c.eat("#IMPLIED") {
            continue;
        }
        if c.eat("#FIXED") {
            c.need_ws("after #FIXED")?;
        }
        let value = c.quoted("the default value")?;
        if value.contains('<') {
            return err("`<` in a default attribute value");
        }
        let mut rest = value;
        while let Some(amp) = rest.find('&') {
            rest = &rest[amp + 1..];
            let semi = rest
                .find(';')
                .ok_or("`&` that starts no reference in a default value")?;
            check_ref_syntax(&rest[..semi])?;
            rest = &rest[semi + 1..];
        }
    }
}

/// `( S? Nmtoken (S? | S? Nmtoken)* S? )`, or of names for a notation type.
fn enumeration(c: &mut Cur<'_>, names: bool) -> Check {
    c.expect(b'(', "`(` expected")?;
    loop {
        c.ws();
        if names {
            c.name("in a notation type")?;
        } else {
            c.nmtoken()?;
        }
        c.ws();
        if c.eat(")") {
            return Ok(());
        }
        c.expect(b'|', "`|` or `)` expected in an enumeration")?;
    }
}

/// `<!ENTITY S (% S)? Name S (EntityValue | ExternalID NDataDecl?) S? >`, after the keyword.
fn entity_decl<'a>(c: &mut Cur<'a>, dtd: &mut Dtd, values: &mut Vec<&'a str>) -> Check {
    c.need_ws("after <!ENTITY")?;
    let parameter = c.eat("%");
    if parameter {
        c.need_ws("after `%`")?;
    }
    let name = c.name("of an entity")?;
    c.need_ws("after the entity name")?;
    if matches!(c.peek(), Some(b'"' | b'\'')) {
        let value = c.quoted("the entity value")?;
        if value.contains('%') {
            return err("parameter-entity reference inside a declaration of the internal subset");
        }
        values.push(value);
    } else {
        external_id(c, false)?;
        let save = c.p;
        if !parameter && c.ws() && c.eat("NDATA") {
            c.need_ws("after NDATA")?;
            c.name("of a notation")?;
        } else {
            c.p = save;
        }
    }
    if !parameter {
        dtd.entities.insert(name.to_string());
    }
    end_decl(c)
}
