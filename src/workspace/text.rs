//! Text handling shared by the tools: tokens, heading/paragraph chunks and sentences.
//!
//! Chunks are whole passages: a run of non-blank lines, at most [`MAX_CHUNK_LINES`] lines. A
//! Markdown heading line starts a new chunk and becomes the section of the chunks after it, so a
//! paragraph is found by the words of its heading too. Pure functions; no IO.

/// A passage never spans more lines than this (files without blank lines still chunk).
pub const MAX_CHUNK_LINES: usize = 40;

/// Words that carry no meaning for ranking.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "if", "in", "into", "is", "it", "its", "me", "of", "on", "or", "so", "that", "the",
    "their", "then", "there", "these", "this", "to", "was", "we", "what", "when", "where", "which",
    "who", "why", "will", "with", "you", "your",
];

/// Lower-cased word tokens of `text` (alphanumeric runs of two or more characters, stop words
/// dropped, a plural `s` folded).
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
        .filter(|w| !is_stopword(w))
        .map(fold)
}

/// Calls `each` with every token of `text`, the same as [`tokens`] yields, without allocating
/// for a word that is already lower-case ASCII (most words of most files); `scratch` holds any
/// other word lower-cased.
pub fn each_token(text: &str, scratch: &mut String, mut each: impl FnMut(&str)) {
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let lower = if w
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        {
            if w.len() < 2 {
                continue;
            }
            w
        } else {
            if w.chars().count() < 2 {
                continue;
            }
            scratch.clear();
            if w.is_ascii() {
                scratch.push_str(w);
                scratch.make_ascii_lowercase();
            } else {
                scratch.push_str(&w.to_lowercase());
            }
            scratch.as_str()
        };
        if is_stopword(lower) {
            continue;
        }
        let folded =
            lower.len() > 3 && lower.ends_with('s') && !lower.ends_with("ss") && lower.is_ascii();
        each(if folded {
            &lower[..lower.len() - 1]
        } else {
            lower
        });
    }
}

/// Whether `word` (lower-cased) is a stop word (the list is sorted).
fn is_stopword(word: &str) -> bool {
    word.len() <= 5 && STOPWORDS.binary_search(&word).is_ok()
}

/// A light stemmer: `configs` → `config`, `works` → `work` (not `class`, not short words).
fn fold(mut word: String) -> String {
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && word.is_ascii() {
        word.pop();
    }
    word
}

/// One passage of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// First line, 1-based.
    pub start: u32,
    /// Last line, 1-based, inclusive.
    pub end: u32,
    /// Byte range of the passage in the file's text.
    pub bytes: (usize, usize),
    /// The Markdown heading this passage sits under (its own heading for a heading chunk),
    /// shared by every passage under it.
    pub section: Option<std::sync::Arc<str>>,
}

impl Chunk {
    /// The passage's text.
    pub fn text<'a>(&self, file: &'a str) -> &'a str {
        file.get(self.bytes.0..self.bytes.1).unwrap_or("")
    }
}

/// The passages of `text`; `markdown` enables heading sections.
pub fn chunks(text: &str, markdown: bool) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut section: Option<std::sync::Arc<str>> = None;
    let mut current: Option<(u32, usize)> = None; // (start line, start byte)
    let mut last: (u32, usize) = (0, 0); // (line, end byte of that line without newline)
    let mut count = 0usize;
    let mut offset = 0usize;
    let mut in_fence = false;
    let mut heading_only = false;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let line = raw.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += raw.len();
        let trimmed = line.trim();
        if markdown && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
            in_fence = !in_fence;
        }
        let heading = markdown && !in_fence && heading_text(trimmed);
        // In Markdown a paragraph that ends with `:` introduces what follows (a list, a
        // block): keep them one passage across the blank line.
        // A heading stays with the paragraph under it.
        let blank = trimmed.is_empty()
            && !(markdown && current.is_some() && text[..last.1].trim_end().ends_with(':'))
            && !(current.is_some() && heading_only);
        if (blank || heading || count >= MAX_CHUNK_LINES)
            && let Some((s, b)) = current.take()
        {
            out.push(Chunk {
                start: s,
                end: last.0,
                bytes: (b, last.1),
                section: section.clone(),
            });
            count = 0;
        }
        if heading {
            section = Some(trimmed.trim_start_matches('#').trim().into());
        }
        if blank || trimmed.is_empty() {
            continue;
        }
        if current.is_none() {
            current = Some((line_no, start));
            heading_only = heading;
        } else {
            heading_only = false;
        }
        count += 1;
        last = (line_no, start + line.len());
    }
    if let Some((s, b)) = current {
        out.push(Chunk {
            start: s,
            end: last.0,
            bytes: (b, last.1),
            section,
        });
    }
    out
}

/// Whether a trimmed line is an ATX Markdown heading (`# Title` … `###### Title`).
fn heading_text(trimmed: &str) -> bool {
    let hashes = trimmed.bytes().take_while(|b| *b == b'#').count();
    (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ')
}

/// Whether `haystack` contains `needle` (already lower-case) ignoring case. An ASCII needle is
/// found without lower-casing the haystack (no copy of a file's text is kept or made).
pub fn contains_folded(haystack: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return haystack.to_lowercase().contains(needle);
    }
    let (hay, pin) = (haystack.as_bytes(), needle.as_bytes());
    let Some(&first) = pin.first() else {
        return true;
    };
    let mut from = 0usize;
    while let Some(at) = memchr::memchr2(
        first.to_ascii_lowercase(),
        first.to_ascii_uppercase(),
        &hay[from..],
    ) {
        let start = from + at;
        if hay
            .get(start..start + pin.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(pin))
        {
            return true;
        }
        from = start + 1;
    }
    false
}

/// Number of whitespace-separated words.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The sentences of a passage (split after `.`, `!` or `?` followed by whitespace, and at line
/// ends of list items and headings), trimmed, non-empty.
pub fn sentences(passage: &str) -> Vec<String> {
    // First whole blocks: list items and headings stand alone, other lines join up.
    let mut blocks = Vec::new();
    let mut current = String::new();
    for line in passage.lines() {
        let t = line.trim();
        let item = t.starts_with("- ") || t.starts_with("* ") || t.starts_with('#');
        if (item || t.is_empty()) && !current.is_empty() {
            blocks.push(std::mem::take(&mut current));
        }
        if item {
            blocks.push(t.to_owned());
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(t);
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    let mut out = Vec::new();
    for block in blocks {
        let mut rest = block.as_str();
        while let Some(pos) = rest
            .char_indices()
            .find(|(i, c)| {
                matches!(c, '.' | '!' | '?') && rest[i + 1..].starts_with(char::is_whitespace)
            })
            .map(|(i, _)| i)
        {
            out.push(rest[..=pos].trim().to_owned());
            rest = &rest[pos + 1..];
        }
        out.push(rest.trim().to_owned());
    }
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn each_token_yields_what_tokens_yields() {
        assert!(
            STOPWORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted for binary search"
        );
        assert!(STOPWORDS.iter().all(|w| w.len() <= 5));
        let text = "The Configs, configs and CLASS works: ÉTÉ Straße ΣΑΣ id_rsa x \
                    a1 42 übers RUST's THERE these Ünits";
        let mut scratch = String::new();
        let mut seen = Vec::new();
        each_token(text, &mut scratch, |t| seen.push(t.to_owned()));
        assert_eq!(seen, tokens(text).collect::<Vec<_>>());
        assert!(seen.contains(&"config".to_owned()) && seen.contains(&"class".to_owned()));
    }

    #[test]
    fn tokens_fold_and_drop_stopwords() {
        let t: Vec<String> =
            tokens("How does Configuration precedence work? configs_file").collect();
        assert_eq!(t, ["configuration", "precedence", "work", "config", "file"]);
    }

    #[test]
    fn chunks_follow_headings_and_blank_lines() {
        let text =
            "# Title\nintro line\n\npara two\nmore\n\n## Sub\n```\ncode\n\n# not a heading\n```\n";
        let c = chunks(text, true);
        let spans: Vec<(u32, u32)> = c.iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(spans, [(1, 2), (4, 5), (7, 9), (11, 12)]);
        assert_eq!(c[0].text(text), "# Title\nintro line");
        assert_eq!(c[1].section.as_deref(), Some("Title"));
        assert_eq!(c[3].section.as_deref(), Some("Sub"));
        // A heading followed by a blank line stays with its first paragraph.
        let c2 = chunks("## Sub\n\nbody\n\nnext\n", true);
        let spans: Vec<(u32, u32)> = c2.iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(spans, [(1, 3), (5, 5)]);
    }

    #[test]
    fn an_introducing_colon_keeps_the_list() {
        let text = "Files, lowest first:\n\n1. user\n2. project\n\nNext.\n";
        let c = chunks(text, true);
        let spans: Vec<(u32, u32)> = c.iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(spans, [(1, 4), (6, 6)]);
    }

    #[test]
    fn long_runs_are_split() {
        let text = "x\n".repeat(100);
        let c = chunks(&text, false);
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].start, c[0].end), (1, 40));
    }

    #[test]
    fn sentence_split() {
        let s = sentences("# Head\nOne thing. Two\nthings! Three\n- item a\n- item b");
        assert_eq!(
            s,
            [
                "# Head",
                "One thing.",
                "Two things!",
                "Three",
                "- item a",
                "- item b"
            ]
        );
    }
}
