//! Opening the authorization URL: `$BROWSER` when set (the command and its words, with the URL
//! as the last argument), else `xdg-open`. The child gets no terminal (its output would tear the
//! console) and is reaped in the background. Opening may fail quietly: every face also shows the
//! URL, so the operator can always open it by hand.

use std::process::{Command, Stdio};

/// Tries to open `url` in a browser; true when a command was started.
pub(crate) fn open(url: &str) -> bool {
    let configured = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let (program, args): (String, Vec<String>) = match configured {
        Some(browser) => {
            let mut words = browser.split_whitespace().map(str::to_owned);
            let Some(program) = words.next() else {
                return false;
            };
            (program, words.collect())
        }
        None => ("xdg-open".to_owned(), Vec::new()),
    };
    let spawned = Command::new(program)
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = spawned else {
        return false;
    };
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    true
}
