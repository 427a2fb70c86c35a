//! Copying text: the system clipboard through `arboard` (up to 8 MiB), else an OSC 52 write to
//! the terminal (never a query), capped at 1 MiB because terminals drop larger sequences, of
//! text that was sanitised in the app.

use std::io::Write as _;

use base64::Engine as _;

/// Largest text written through OSC 52.
pub const OSC52_CAP: usize = 1024 * 1024;
/// Largest text handed to the system clipboard.
pub const SYSTEM_CAP: usize = 8 * 1024 * 1024;

/// The clipboard paths, keeping the system clipboard open (X11 loses contents on close).
#[derive(Default)]
pub struct Clipboard {
    system: Option<arboard::Clipboard>,
    tried: bool,
}

impl Clipboard {
    /// Copies `text`; says which path was used. Through OSC 52 a text over the cap is cut.
    pub fn copy(&mut self, text: &str) -> Result<&'static str, String> {
        if self.system_copy(text) {
            return Ok("system clipboard");
        }
        write_osc52(text)
    }

    /// Copies the whole of `text` or nothing: `Err(None)` when it is over the cap of the one
    /// path that is available (the system clipboard's [`SYSTEM_CAP`], OSC 52's [`OSC52_CAP`]).
    pub fn copy_whole(&mut self, text: &str) -> Result<&'static str, Option<String>> {
        if text.len() > SYSTEM_CAP {
            return Err(None);
        }
        if self.system_copy(text) {
            return Ok("system clipboard");
        }
        if text.len() > OSC52_CAP {
            return Err(None);
        }
        write_osc52(text).map_err(Some)
    }

    /// Sets the system clipboard, opening it once; false when there is none.
    fn system_copy(&mut self, text: &str) -> bool {
        if !self.tried {
            self.tried = true;
            self.system = arboard::Clipboard::new().ok();
        }
        self.system
            .as_mut()
            .is_some_and(|system| system.set_text(text.to_owned()).is_ok())
    }
}

/// Writes `text` to the terminal's clipboard through OSC 52.
fn write_osc52(text: &str) -> Result<&'static str, String> {
    let mut out = std::io::stdout();
    out.write_all(osc52(text).as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())?;
    Ok("OSC 52")
}

/// The OSC 52 sequence setting the clipboard to `text` (capped on a character boundary).
pub fn osc52(text: &str) -> String {
    let mut end = text.len().min(OSC52_CAP);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(&text.as_bytes()[..end]);
    format!("\x1b]52;c;{encoded}\x07")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_a_set_never_a_query_and_is_capped() {
        let s = osc52("hi");
        assert_eq!(s, "\x1b]52;c;aGk=\x07");
        let big = "x".repeat(OSC52_CAP + 10);
        let s = osc52(&big);
        assert!(s.len() < OSC52_CAP * 4 / 3 + 16);
        assert!(!osc52("").contains('?'));
    }
}
