//! Where each object of the input is stored, so that the writer can copy an unedited object as
//! it was: the byte span of `N G obj … endobj` for an object at the top level of the file, the
//! object stream and index for one stored in an object stream.
//!
//! A span is found by reading the object's syntax from the offset the cross-reference data gives
//! (strings, hex strings, names, comments and nesting are skipped as tokens, a stream's data by
//! its `/Length`), up to its `endobj`. An object whose span cannot be read that way (a wrong
//! offset, a wrong `/Length`, unbalanced brackets) has no span and is always written afresh.

use lopdf::xref::XrefEntry;
use lopdf::{Object, ObjectId};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// Where an object is stored in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// At the top level: the span of `N G obj … endobj`, and the object holding the stream's
    /// `/Length` if that is an indirect reference (it must be copied with the stream).
    Plain {
        span: Range<usize>,
        length: Option<ObjectId>,
    },
    /// In object stream `container`, at `index`.
    Member { container: u32, index: u16 },
}

/// The storage of every object of the input that the writer may copy.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    /// By object id; objects without a readable span are absent.
    pub(crate) places: HashMap<ObjectId, Place>,
    /// Object stream number → the objects stored in it (by the cross-reference data).
    pub(crate) members: BTreeMap<u32, Vec<ObjectId>>,
    /// Object stream number → its decoded data (decrypted), for the stored bytes of its objects.
    pub(crate) decoded: BTreeMap<u32, Vec<u8>>,
    /// An object in an object stream → its stored bytes in the decoded data of the stream.
    pub(crate) member_spans: HashMap<ObjectId, Range<usize>>,
}

impl Layout {
    /// Reads the layout of `input` from the loaded document's cross-reference data.
    ///
    /// Object streams are decoded again (at most `limit` bytes each, as loading does) to find the
    /// stored bytes of their objects. The stored bytes of an object must read as the object that
    /// was loaded (a stream: its dictionary and content; not checked in an `encrypted` file,
    /// whose bytes are not its decrypted value), else it has no span and is written afresh.
    pub(crate) fn read(
        input: &[u8],
        xref: &BTreeMap<u32, XrefEntry>,
        objects: &BTreeMap<ObjectId, Object>,
        limit: usize,
        encrypted: bool,
    ) -> Layout {
        let mut layout = Layout::default();
        // An object's bytes end before the next object starts: reading one never runs past it,
        // so reading them all is linear in the input, whatever its damage.
        let mut starts: Vec<usize> = xref
            .values()
            .filter_map(|e| match *e {
                XrefEntry::Normal { offset, .. } => Some(offset as usize),
                _ => None,
            })
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let resolve = |r: ObjectId| match objects.get(&r) {
            Some(Object::Integer(n)) => usize::try_from(*n).ok(),
            _ => None,
        };
        // lopdf files an object under the number written at its offset (`N G obj`), not under
        // the entry's number, so two entries whose bytes say the same number (a damaged file)
        // give one object, read from either place: such an object has no span.
        let mut claims: HashMap<ObjectId, usize> = HashMap::new();
        for entry in xref.values() {
            if let XrefEntry::Normal { offset, .. } = *entry
                && let Some(id) = header(input, offset as usize)
            {
                *claims.entry(id).or_default() += 1;
            }
        }
        for (&num, entry) in xref {
            match *entry {
                XrefEntry::Normal { offset, generation } => {
                    let id = (num, generation);
                    if claims.get(&id).is_some_and(|&n| n > 1) {
                        continue;
                    }
                    let offset = offset as usize;
                    let next = starts.partition_point(|&o| o <= offset);
                    let end = starts.get(next).copied().unwrap_or(input.len());
                    let segment = input.get(..end.min(input.len())).unwrap_or_default();
                    // A rebuilt cross-reference table may point at one copy of an object while
                    // lopdf kept another (one in an object stream: the `pdf` fuzzer's
                    // `rebuilt-xref-other-copy`): copying those bytes would write another value.
                    let other = |span: &Range<usize>| {
                        let bytes = &input[span.clone()];
                        !encrypted
                            && objects.get(&id).is_some_and(|o| match o {
                                Object::Stream(s) => !stream_reads_as(bytes, s),
                                _ => !value(bytes).is_some_and(|v| reads_as(v, o)),
                            })
                    };
                    if let Some((span, length)) = object_span(segment, offset, id, &resolve)
                        && !other(&span)
                    {
                        let length = match length {
                            Some(Length::Indirect(r)) => Some(r),
                            _ => None,
                        };
                        layout.places.insert(id, Place::Plain { span, length });
                    }
                }
                XrefEntry::Compressed { container, index } => {
                    let id = (num, 0);
                    if objects.contains_key(&id) {
                        layout.places.insert(id, Place::Member { container, index });
                        layout.members.entry(container).or_default().push(id);
                    }
                }
                XrefEntry::Free | XrefEntry::UnusableFree => {}
            }
        }
        for (&container, members) in &layout.members {
            let Some(Object::Stream(stream)) = objects.get(&(container, 0)) else {
                continue;
            };
            let Ok(data) = stream.get_plain_content_with_limit(limit) else {
                continue;
            };
            let first = match stream.dict.get(b"First") {
                Ok(Object::Integer(f)) => usize::try_from(*f).unwrap_or(usize::MAX),
                _ => continue,
            };
            let spans = member_spans(&data, first);
            for id in members {
                if let Some(Place::Member { index, .. }) = layout.places.get(id)
                    && let Some(&(num, ref span)) = spans.get(usize::from(*index))
                    && num == id.0
                    && objects
                        .get(id)
                        .is_some_and(|o| reads_as(&data[span.clone()], o))
                {
                    layout.member_spans.insert(*id, span.clone());
                }
            }
            layout.decoded.insert(container, data);
        }
        layout
    }

    /// The stored bytes of an object in an object stream.
    pub(crate) fn member_bytes(&self, id: ObjectId) -> Option<&[u8]> {
        let Some(Place::Member { container, .. }) = self.places.get(&id) else {
            return None;
        };
        self.decoded
            .get(container)?
            .get(self.member_spans.get(&id)?.clone())
    }
}

/// The value in the bytes of an object outside object streams (`N G obj … endobj`).
fn value(bytes: &[u8]) -> Option<&[u8]> {
    let start = bytes.windows(3).position(|w| w == b"obj")? + 3;
    bytes.get(start..)?.strip_suffix(b"endobj")
}

/// Whether the stored bytes of a stream object (`N G obj <<…>> stream … endstream endobj`) hold
/// the stream lopdf loaded: its dictionary, and its content right after the `stream` line. After
/// a cross-reference rebuild they may be another copy, or bytes lopdf could not read again from
/// the rewritten file (the `pdf-nested` fuzzer's `stream-copy-does-not-reread`); a dictionary
/// with `stream` in a string fails this too, and is written afresh, which is always right.
fn stream_reads_as(bytes: &[u8], stream: &lopdf::Stream) -> bool {
    let Some(v) = value(bytes) else {
        return false;
    };
    // The keyword after the dictionary: `stream` after `>>` or a blank, and before an end of line
    // (not `/application#2Foctet-stream` inside it).
    let keyword = (0..v.len()).find_map(|k| {
        let rest = v[k..].strip_prefix(b"stream")?;
        let after_dict = k > 0 && (v[k - 1] == b'>' || v[k - 1].is_ascii_whitespace());
        let content = (rest.strip_prefix(b"\r\n"))
            .or_else(|| rest.strip_prefix(b"\n"))
            .or_else(|| rest.strip_prefix(b"\r"))?;
        after_dict.then_some((k, content))
    });
    keyword.is_some_and(|(k, content)| {
        content.starts_with(&stream.content)
            && reads_as(&v[..k], &Object::Dictionary(stream.dict.clone()))
    })
}

/// Whether `bytes` alone read as `object`. A member's bytes are taken to end where the next
/// member starts, but lopdf reads each member from its start to the end of its value, past the
/// next one's start if damaged offsets say it begins inside this one: then the bytes are not the
/// object, and copying them would write a truncated object (the `pdf` fuzzer's
/// `objstm-member-cut-short`).
fn reads_as(bytes: &[u8], object: &Object) -> bool {
    // An object stream of one object, number 0 at offset 0, read as lopdf reads any.
    let head = b"0 0\n";
    let mut content = head.to_vec();
    content.extend_from_slice(bytes);
    let mut dict = lopdf::Dictionary::new();
    dict.set("Type", Object::Name(b"ObjStm".to_vec()));
    dict.set("N", Object::Integer(1));
    dict.set("First", Object::Integer(head.len() as i64));
    let stream = lopdf::Stream::new(dict, content);
    lopdf::ObjectStream::new_with_limit(&stream, Some(bytes.len() + head.len()))
        .is_ok_and(|s| s.objects.get(&(0, 0)) == Some(object))
}

/// The objects of a decoded object stream: (number, span of its bytes, trimmed), in order.
fn member_spans(data: &[u8], first: usize) -> Vec<(u32, Range<usize>)> {
    let mut pairs = Vec::new();
    let mut i = 0;
    let header = data.get(..first).unwrap_or_default();
    loop {
        i = skip_blank(header, i);
        let Some((num, e)) = number(header, i) else {
            break;
        };
        let Some((off, e)) = number(header, skip_blank(header, e)) else {
            break;
        };
        i = e;
        let (Ok(num), Ok(off)) = (u32::try_from(num), usize::try_from(off)) else {
            break;
        };
        pairs.push((num, first.saturating_add(off)));
    }
    let mut spans = Vec::with_capacity(pairs.len());
    for (k, &(num, start)) in pairs.iter().enumerate() {
        let end = pairs.get(k + 1).map_or(data.len(), |p| p.1);
        if start > end || end > data.len() {
            break;
        }
        let mut a = start;
        let mut b = end;
        while a < b && is_white(data[a]) {
            a += 1;
        }
        while b > a && is_white(data[b - 1]) {
            b -= 1;
        }
        spans.push((num, a..b));
    }
    spans
}

/// A stream's `/Length` as written in its dictionary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    Direct(usize),
    Indirect(ObjectId),
}

fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Skips white space and comments from `i`.
fn skip_blank(s: &[u8], mut i: usize) -> usize {
    while i < s.len() {
        if is_white(s[i]) {
            i += 1;
        } else if s[i] == b'%' {
            while i < s.len() && s[i] != b'\n' && s[i] != b'\r' {
                i += 1;
            }
        } else {
            break;
        }
    }
    i
}

/// A regular token (number, keyword, the body of a name) from `i`: its end.
fn regular(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && !is_white(s[i]) && !is_delim(s[i]) {
        i += 1;
    }
    i
}

/// The end of a literal string starting at `(` at `i`.
fn literal_string(s: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Reads the number at `i` (digits only), with its end.
fn number(s: &[u8], i: usize) -> Option<(u64, usize)> {
    let end = regular(s, i);
    let text = std::str::from_utf8(s.get(i..end)?).ok()?;
    Some((text.parse().ok()?, end))
}

/// The object id written at `offset` (`N G obj`), if any.
/// Blanks before it are skipped, as lopdf does (counting a header too many only costs a copy).
fn header(s: &[u8], offset: usize) -> Option<ObjectId> {
    let (num, i) = number(s, skip_blank(s, offset))?;
    let (generation, i) = number(s, skip_blank(s, i))?;
    let i = skip_blank(s, i);
    if s.get(i..i + 3)? != b"obj" {
        return None;
    }
    Some((u32::try_from(num).ok()?, u16::try_from(generation).ok()?))
}

/// The span of object `id` written at `offset`: from its `N G obj` to the end of its `endobj`,
/// with the `/Length` of a stream's dictionary (an indirect one is read by `resolve`). `None` if
/// the bytes there are not that object.
fn object_span(
    s: &[u8],
    offset: usize,
    id: ObjectId,
    resolve: &dyn Fn(ObjectId) -> Option<usize>,
) -> Option<(Range<usize>, Option<Length>)> {
    let (num, i) = number(s, offset)?;
    let (generation, i) = number(s, skip_blank(s, i))?;
    if num != u64::from(id.0) || generation != u64::from(id.1) {
        return None;
    }
    let i = skip_blank(s, i);
    if s.get(i..i + 3)? != b"obj" {
        return None;
    }
    let mut i = i + 3;
    // The open `<<` (as `<`) and `[`; a close must match the last open.
    let mut open: Vec<u8> = Vec::new();
    let mut length: Option<Length> = None;
    // The last tokens at depth 1 of a dictionary, to read `/Length N` and `/Length N G R`.
    let mut recent: Vec<&[u8]> = Vec::new();
    loop {
        i = skip_blank(s, i);
        let c = *s.get(i)?;
        let start = i;
        match c {
            b'(' => i = literal_string(s, i)?,
            b'<' if s.get(i + 1) == Some(&b'<') => {
                open.push(b'<');
                i += 2;
            }
            b'>' if s.get(i + 1) == Some(&b'>') => {
                if open.pop()? != b'<' {
                    return None;
                }
                i += 2;
            }
            b'<' => i += s[i..].iter().position(|&b| b == b'>')? + 1,
            b'[' => {
                open.push(b'[');
                i += 1;
            }
            b']' => {
                if open.pop()? != b'[' {
                    return None;
                }
                i += 1;
            }
            b'/' => i = regular(s, i + 1),
            b'{' | b'}' | b')' | b'>' => return None,
            _ => {
                i = regular(s, i);
                if i == start {
                    return None;
                }
                let word = &s[start..i];
                if open.is_empty() && word == b"endobj" {
                    return Some((offset..i, length));
                }
                if open.is_empty() && word == b"stream" {
                    let data = match s.get(i..)? {
                        [b'\r', b'\n', ..] => i + 2,
                        [b'\n', ..] | [b'\r', ..] => i + 1,
                        _ => return None,
                    };
                    let end = match length? {
                        Length::Direct(n) => data.checked_add(n)?,
                        Length::Indirect(r) => data.checked_add(resolve(r)?)?,
                    };
                    let e = skip_blank(s, end);
                    if s.get(e..e + 9)? != b"endstream" {
                        return None;
                    }
                    let e = skip_blank(s, e + 9);
                    if s.get(e..e + 6)? != b"endobj" {
                        return None;
                    }
                    return Some((offset..e + 6, length));
                }
            }
        }
        if open.len() == 1 {
            recent.push(&s[start..i]);
            if let [.., key, value] = recent.as_slice()
                && *key == b"/Length"
            {
                length = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .map(Length::Direct);
            }
            if let [.., key, n, g, r] = recent.as_slice()
                && *key == b"/Length"
                && *r == b"R"
                && let (Some((n, _)), Some((g, _))) = (number(n, 0), number(g, 0))
            {
                length = Some(Length::Indirect((
                    u32::try_from(n).ok()?,
                    u16::try_from(g).ok()?,
                )));
            }
            if recent.len() > 4 {
                recent.remove(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(s: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
        s[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|p| p + from)
    }

    fn no_object(_: ObjectId) -> Option<usize> {
        None
    }

    #[test]
    fn spans_end_at_endobj_past_strings_comments_and_stream_data() {
        let s = b"%PDF-1.4\n1 0 obj\n<</A(endobj \\) ( x)) /B<656e646f626a>%endobj\n>>\nendobj\n\
                  2 0 obj <</Length 9>>stream\nendobj!!!\nendstream endobj";
        let (span, length) = object_span(s, 9, (1, 0), &no_object).unwrap();
        assert_eq!(
            &s[span],
            &b"1 0 obj\n<</A(endobj \\) ( x)) /B<656e646f626a>%endobj\n>>\nendobj"[..]
        );
        assert_eq!(length, None);
        let at = find(s, 0, b"2 0 obj").unwrap();
        let (span, length) = object_span(s, at, (2, 0), &no_object).unwrap();
        assert_eq!(
            &s[span],
            &b"2 0 obj <</Length 9>>stream\nendobj!!!\nendstream endobj"[..]
        );
        assert_eq!(length, Some(Length::Direct(9)));
    }

    #[test]
    fn a_wrong_offset_length_or_bracket_gives_no_span() {
        let s = b"1 0 obj <</Length 3>>stream\nabcdef\nendstream endobj 2 0 obj [1 2>> endobj";
        assert_eq!(
            object_span(s, 0, (1, 0), &no_object),
            None,
            "the data is longer than /Length"
        );
        assert_eq!(
            object_span(s, 0, (3, 0), &no_object),
            None,
            "another object number"
        );
        let at = find(s, 0, b"2 0 obj").unwrap();
        assert_eq!(object_span(s, at, (2, 0), &no_object), None, "unbalanced");
        let s = b"4 0 obj <</Length 5 0 R>>stream\nabc\nendstream\nendobj";
        let three = |r: ObjectId| (r == (5, 0)).then_some(3);
        let (span, length) = object_span(s, 0, (4, 0), &three).unwrap();
        assert_eq!(span, 0..s.len());
        assert_eq!(length, Some(Length::Indirect((5, 0))));
        let two = |r: ObjectId| (r == (5, 0)).then_some(2);
        assert_eq!(
            object_span(s, 0, (4, 0), &two),
            None,
            "a wrong indirect length"
        );
        assert_eq!(object_span(s, 0, (4, 0), &no_object), None, "a missing one");
    }

    #[test]
    fn reading_stops_at_the_end_of_the_segment() {
        // An unclosed string would run to the end of the input; cut at the next object, it ends
        // there, unread.
        let s = b"1 0 obj (unclosed endobj 2 0 obj (x) endobj";
        let at = find(s, 0, b"2 0 obj").unwrap();
        assert_eq!(object_span(&s[..at], 0, (1, 0), &no_object), None);
        assert_eq!(
            object_span(s, at, (2, 0), &no_object),
            Some((at..s.len(), None))
        );
    }
}
