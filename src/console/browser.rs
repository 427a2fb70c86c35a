//! Opens a URL a server asked the operator to visit, only on the operator's key: `$BROWSER`
//! (the first of a `:`-separated list), else `xdg-open` (`open` on macOS). Only `http` and
//! `https` URLs are handed over; the URL is one argument, never through a shell.

use std::process::{Command, Stdio};

/// Opens `url`; the program used, or why not.
pub fn open(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "only http and https URLs are opened, not `{}`",
            parsed.scheme()
        ));
    }
    let program = std::env::var("BROWSER")
        .ok()
        .and_then(|b| b.split(':').next().map(str::trim).map(str::to_owned))
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".to_owned()
            } else {
                "xdg-open".to_owned()
            }
        });
    let mut child = Command::new(&program)
        .arg(parsed.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    // Reaped in the background: a browser may run for a long time.
    std::thread::spawn(move || child.wait());
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_urls_are_opened() {
        assert!(open("file:///etc/passwd").is_err_and(|e| e.contains("file")));
        assert!(open("not a url").is_err());
    }
}
