//! The console's side of reading spill files: answering the pager's window reads from a line
//! index built once per file (one streaming pass; windows are read by seeking), and copying a
//! spill's whole text within the clipboard's caps. Runs on blocking tasks; never holds a whole
//! file except the text a copy hands to the clipboard (at most [`SYSTEM_CAP`]).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::clipboard::{Clipboard, SYSTEM_CAP};
use crate::app::{PAGER_BYTES, PAGER_LINES, SpillAt};
use crate::mcp::results::{LineIndex, SpillWindow, search_spill};

/// The last file indexed, reused while its size is unchanged (spills are written once).
#[derive(Debug, Default)]
pub struct IndexCache(Mutex<Option<(PathBuf, LineIndex)>>);

impl IndexCache {
    fn index(&self, path: &Path) -> std::io::Result<LineIndex> {
        let size = std::fs::metadata(path)?.len();
        let mut cached = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((p, index)) = cached.as_ref()
            && p == path
            && index.size() == size
        {
            return Ok(index.clone());
        }
        let index = LineIndex::build(path)?;
        *cached = Some((path.to_owned(), index.clone()));
        Ok(index)
    }
}

/// The file's first bytes, to tell a binary spill from text.
fn head(path: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    let mut buf = Vec::new();
    file.take(64 * 1024).read_to_end(&mut buf)?;
    Ok((buf, size))
}

/// The window of `path` that `at` asks for. A binary spill (an image) is its description.
pub fn read_window(cache: &IndexCache, path: &Path, at: &SpillAt) -> Result<SpillWindow, String> {
    let failed = |e: std::io::Error| format!("reading the spill failed: {e}");
    let (head, size) = head(path).map_err(failed)?;
    if let Some(description) = super::binary::describe(&head, size) {
        return Ok(SpillWindow {
            lines: vec![description],
            total_lines: 1,
            size,
            ..SpillWindow::default()
        });
    }
    let index = cache.index(path).map_err(failed)?;
    let read = |line: usize| -> std::io::Result<SpillWindow> {
        let window = index.read(path, SpillAt::start(line), PAGER_LINES, PAGER_BYTES)?;
        // Long lines can spend the byte budget before the wanted line: read from it then.
        if window.first + window.lines.len() <= line.min(index.lines().saturating_sub(1)) {
            return index.read(path, line, PAGER_LINES, PAGER_BYTES);
        }
        Ok(window)
    };
    match at {
        SpillAt::Line(line) => read(*line).map_err(failed),
        SpillAt::End => index
            .read_end(path, PAGER_LINES, PAGER_BYTES)
            .map_err(failed),
        SpillAt::Find {
            query,
            from,
            forward,
        } => {
            let found = search_spill(path, query, *from, *forward).map_err(failed)?;
            let Some(line) = found else {
                return Ok(SpillWindow {
                    total_lines: index.lines(),
                    size,
                    ..SpillWindow::default()
                });
            };
            let mut window = read(line).map_err(failed)?;
            window.found = Some(line);
            Ok(window)
        }
    }
}

/// Copies the whole text of the spill at `path`, sanitised: through the system clipboard up
/// to [`SYSTEM_CAP`], through OSC 52 up to [`super::clipboard::OSC52_CAP`]. Over a cap nothing is copied and the
/// message names the file. A binary spill copies its path.
pub fn copy_spill(clipboard: &Mutex<Clipboard>, path: &Path) -> Result<String, String> {
    let shown = crate::mcp::sanitize::sanitize(&path.display().to_string()).into_owned();
    let (head, size) = head(path).map_err(|e| format!("reading the spill failed: {e}"))?;
    let mut clipboard = clipboard
        .lock()
        .map_err(|_| "the clipboard is unavailable".to_owned())?;
    if super::binary::describe(&head, size).is_some() {
        let via = clipboard.copy(&shown)?;
        return Ok(format!(
            "a binary spill: copied its path via {via}: {shown}"
        ));
    }
    let too_big = |cap: &str| {
        format!("not copied: {size} bytes is over the {cap}; the whole text is in {shown}")
    };
    if size > SYSTEM_CAP as u64 {
        return Err(too_big("8 MiB clipboard cap"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("reading the spill failed: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let text = crate::mcp::sanitize::sanitize(&text);
    match clipboard.copy_whole(&text) {
        Ok(via) => Ok(format!("copied {} bytes via {via}", text.len())),
        Err(None) => Err(too_big(
            "1 MiB OSC 52 cap (terminals drop larger sequences)",
        )),
        Err(Some(e)) => Err(format!("copy failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn a_window_read_lands_around_the_wanted_line_and_the_end_is_the_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("spill.txt");
        let mut text = String::new();
        for i in 1..=5000 {
            writeln!(text, "row {i}").expect("write");
        }
        std::fs::write(&path, text + "tail without newline").expect("write");
        let cache = IndexCache::default();
        let w = read_window(&cache, &path, &SpillAt::Line(2000)).expect("read");
        assert!(w.first <= 2000 && w.first + w.lines.len() > 2000);
        assert_eq!(w.lines[2000 - w.first], "row 2001");
        let end = read_window(&cache, &path, &SpillAt::End).expect("end");
        assert_eq!(end.total_lines, 5001);
        assert_eq!(
            end.lines.last().map(String::as_str),
            Some("tail without newline")
        );
        let find = SpillAt::Find {
            query: "ROW 4321".to_owned(),
            from: 0,
            forward: true,
        };
        let found = read_window(&cache, &path, &find).expect("find");
        assert_eq!(found.found, Some(4320));
        assert_eq!(found.lines[4320 - found.first], "row 4321");
    }
}
