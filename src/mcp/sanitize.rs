//! The one sanitiser for untrusted text.
//!
//! Everything that came from a server or a configuration file passes through [`sanitize`] before
//! it reaches a screen, a log, the clipboard or headless output. The output never contains a
//! C0 control but `\n`, a C1 control, DEL, ESC, a bidi control, a zero-width or a tag character:
//! each becomes a visible escape (`␛`, `␇`, `⟨U+202E⟩`). Because ESC itself is made visible, every
//! escape-sequence form (CSI, OSC, DCS, APC, PM, SOS, 8-bit, unterminated) is inert: what follows
//! the escape stays as plain printable text. The function is total and idempotent.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Columns between tab stops when a tab is expanded.
const TAB_WIDTH: usize = 4;

/// How one character is treated.
enum Class {
    /// Printed as is.
    Keep,
    /// A newline: kept, and resets the tab column.
    Newline,
    /// A tab: expanded to spaces.
    Tab,
    /// Replaced by the Unicode "control picture" for it (`␛`, `␇`, `␡`).
    Picture(char),
    /// Replaced by `⟨U+XXXX⟩`.
    CodePoint,
}

fn classify(c: char) -> Class {
    match c {
        '\n' => Class::Newline,
        '\t' => Class::Tab,
        '\u{0}'..='\u{1f}' => Class::Picture(
            char::from_u32(0x2400 + u32::from(c)).unwrap_or(char::REPLACEMENT_CHARACTER),
        ),
        '\u{7f}' => Class::Picture('\u{2421}'),
        // C1 controls (including 8-bit CSI U+009B and OSC U+009D), soft hyphen.
        '\u{80}'..='\u{9f}' | '\u{ad}'
        // Arabic letter mark, Mongolian vowel separator.
        | '\u{61c}' | '\u{180e}'
        // Zero-width space/joiners, LRM/RLM, line and paragraph separators, bidi embeddings and
        // overrides, word joiner and invisible operators, bidi isolates, deprecated format chars.
        | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
        // Zero-width no-break space / BOM, interlinear annotations.
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        // Tag characters.
        | '\u{e0000}'..='\u{e007f}' => Class::CodePoint,
        _ => Class::Keep,
    }
}

/// Makes serialised JSON safe to print without changing the data it carries: every character
/// the sanitiser would rewrite (controls, DEL, C1, bidi, zero-width, tag characters) is written
/// as a `\uXXXX` escape instead (a surrogate pair above U+FFFF). `json` must be serialised
/// JSON: outside strings it holds only ASCII punctuation, so an escape can only land inside a
/// string, where it decodes to the very character the server sent.
pub fn escape_json_text(json: &str) -> Cow<'_, str> {
    // Printable ASCII is kept by `classify`: most JSON is checked eight bytes at a time.
    if printable_ascii(json.as_bytes()) || json.chars().all(|c| matches!(classify(c), Class::Keep))
    {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if matches!(classify(c), Class::Keep) {
            out.push(c);
            continue;
        }
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            let _ = write!(out, "\\u{unit:04x}");
        }
    }
    Cow::Owned(out)
}

/// Whether every byte of `bytes` is printable ASCII (space to `~`), read a word at a time.
fn printable_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let words_printable = words.by_ref().all(|chunk| {
        // Always eight bytes: `chunks_exact`.
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        // A byte below 0x20 borrows into its own high bit when 0x20 is taken from it (a false
        // mark can only follow a true one); a byte above 0x7e has its high bit set once 1 is
        // added, or had it already.
        let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        let above = (w.wrapping_add(ONES) | w) & HIGH;
        below | above == 0
    });
    words_printable && words.remainder().iter().all(|b| matches!(b, b' '..=b'~'))
}

/// Makes untrusted text safe to print. Borrowed when nothing needed changing.
pub fn sanitize(input: &str) -> Cow<'_, str> {
    let clean = input
        .chars()
        .all(|c| matches!(classify(c), Class::Keep | Class::Newline))
        && !input.contains("\r\n");
    if clean {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len() + 16);
    let mut column = 0usize;
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match classify(c) {
            Class::Keep => {
                out.push(c);
                column += 1;
            }
            Class::Newline => {
                out.push('\n');
                column = 0;
            }
            Class::Tab => {
                let spaces = TAB_WIDTH - column % TAB_WIDTH;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            Class::Picture('\u{240d}') if chars.peek() == Some(&'\n') => {
                // CRLF line endings are ordinary text, not a control to show.
            }
            Class::Picture(picture) => {
                out.push(picture);
                column += 1;
            }
            Class::CodePoint => {
                let before = out.len();
                let _ = write!(out, "⟨U+{:04X}⟩", u32::from(c));
                column += out[before..].chars().count();
            }
        }
    }
    Cow::Owned(out)
}

/// Sanitises and caps text at `max_bytes` (on a character boundary), adding a marker that says
/// how much was left out. Used for descriptions and error bodies shown inline.
pub fn sanitize_capped(input: &str, max_bytes: usize) -> String {
    let clean = sanitize(input);
    if clean.len() <= max_bytes {
        return clean.into_owned();
    }
    let mut end = max_bytes;
    while !clean.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} more bytes]", &clean[..end], clean.len() - end)
}

/// Whether `text` is already safe, as [`sanitize`] would leave it unchanged.
pub fn is_clean(text: &str) -> bool {
    matches!(sanitize(text), Cow::Borrowed(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(sanitize("\u{1b}[2Jhi"), "␛[2Jhi");
        assert_eq!(
            sanitize("\u{1b}]52;c;aGk=\u{7}"),
            "␛]52;c;aGk=␇",
            "OSC 52 clipboard write"
        );
        assert_eq!(sanitize("\u{9b}31m"), "⟨U+009B⟩31m", "8-bit CSI");
        assert_eq!(sanitize("\u{1b}P1$r"), "␛P1$r", "unterminated DCS");
    }

    #[test]
    fn bidi_zero_width_and_tags_are_shown() {
        assert_eq!(sanitize("a\u{202e}b"), "a⟨U+202E⟩b");
        assert_eq!(sanitize("a\u{2066}b\u{2069}"), "a⟨U+2066⟩b⟨U+2069⟩");
        assert_eq!(sanitize("x\u{200b}y"), "x⟨U+200B⟩y");
        assert_eq!(sanitize("t\u{e0041}"), "t⟨U+E0041⟩");
        assert_eq!(sanitize("\u{feff}bom"), "⟨U+FEFF⟩bom");
    }

    #[test]
    fn newlines_kept_tabs_expanded_crlf_folded() {
        assert_eq!(sanitize("a\nb"), "a\nb");
        assert_eq!(sanitize("ab\tc\n\td"), "ab  c\n    d");
        assert_eq!(sanitize("one\r\ntwo\rthree"), "one\ntwo␍three");
        assert_eq!(sanitize("del\u{7f}"), "del␡");
    }

    #[test]
    fn json_escapes_keep_the_data() {
        let data = "a\tb\u{1b}[2J\u{202e}x\u{200b}\u{e0041}\u{9b}\u{7f}é";
        let json = serde_json::to_string(&data).expect("json");
        let safe = escape_json_text(&json);
        assert!(safe.is_ascii() || safe.chars().all(|c| matches!(classify(c), Class::Keep)));
        assert!(safe.contains("\\udb40\\udc41"), "{safe}");
        let back: String = serde_json::from_str(&safe).expect("still JSON");
        assert_eq!(back, data);
        assert!(matches!(escape_json_text("{\"a\":1}"), Cow::Borrowed(_)));
    }

    #[test]
    fn printable_ascii_is_read_a_word_at_a_time_as_a_byte_at_a_time() {
        // Every byte value at every place of a word, of the next word and of the tail, and
        // next to the bytes whose carries and borrows a word check could confuse.
        for byte in 0..=u8::MAX {
            for neighbour in [b' ', b'~', 0x7f, 0xff, 0x00, 0x1f, 0x80] {
                for at in 0..19 {
                    let mut text = vec![b'a'; 19];
                    text[at] = byte;
                    if at + 1 < text.len() {
                        text[at + 1] = neighbour;
                    }
                    let expected = text.iter().all(|b| matches!(b, b' '..=b'~'));
                    assert_eq!(
                        printable_ascii(&text),
                        expected,
                        "{byte:#x} at {at} before {neighbour:#x}"
                    );
                }
            }
        }
        assert!(printable_ascii(b""));
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitize("plain — ünïcödé ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn capped_text_says_what_was_cut() {
        assert_eq!(sanitize_capped("abcdef", 4), "abcd… [2 more bytes]");
        assert_eq!(sanitize_capped("ééé", 3), "é… [4 more bytes]");
        assert_eq!(sanitize_capped("abc", 4), "abc");
    }
}
