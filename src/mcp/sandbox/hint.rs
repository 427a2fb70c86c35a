//! What a sandboxed server's failure says about its sandbox: that it runs in one, with its rules
//! in one line, and — when its stderr shows a permission error naming a path — which rule may
//! be missing.

use std::fmt::Write as _;

use super::rules::SandboxDef;

/// Words of a permission error in the stderr of common runtimes (libc, Node, Python).
const DENIED: &[&str] = &[
    "permission denied",
    "eacces",
    "operation not permitted",
    "eperm",
    "access denied",
];

/// The sentence to add to a sandboxed server's error: its rules, and the rule that may be
/// missing when a stderr line shows a permission error on a path.
pub fn note(def: &SandboxDef, stderr: &[String]) -> String {
    let rules = crate::mcp::sanitize::sanitize_capped(&def.summary(), 400);
    let mut out = format!("; the server runs sandboxed ({rules})");
    let denied = stderr
        .iter()
        .rev()
        .find(|line| DENIED.iter().any(|w| line.to_ascii_lowercase().contains(w)));
    if let Some(line) = denied {
        match quoted_path(line) {
            Some(path) => {
                let _ = write!(
                    out,
                    ": it was refused `{path}`; a `read`, `write` or `exec` rule for it (or a \
                     directory above it) may be missing (`mcpdeck sandbox suggest` prints a \
                     profile)"
                );
            }
            None => out.push_str(
                ": its stderr shows a permission error; a `read`, `write`, `exec` or `net` rule \
                 may be missing (`mcpdeck sandbox suggest` prints a profile)",
            ),
        }
    }
    out
}

/// The first absolute path in `line`: between quotes, else a word of its own (`cat: /x:
/// Permission denied`), sanitised.
fn quoted_path(line: &str) -> Option<String> {
    for quote in ['\'', '"', '`'] {
        let mut parts = line.split(quote);
        parts.next();
        while let Some(inside) = parts.next() {
            if inside.starts_with('/') && !inside.contains(char::is_whitespace) {
                return Some(crate::mcp::sanitize::sanitize_capped(inside, 300));
            }
            parts.next();
        }
    }
    line.split([' ', ',', ':'])
        .find(|word| word.starts_with('/') && word.len() > 1)
        .map(|word| crate::mcp::sanitize::sanitize_capped(word, 300))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permission_error_names_the_path_and_the_rules() {
        let def = SandboxDef::default();
        let node = vec![
            "starting".to_owned(),
            "Error: EACCES: permission denied, open '/home/ann/.config/app.json'".to_owned(),
        ];
        let said = note(&def, &node);
        assert!(said.contains("runs sandboxed (read none"), "{said}");
        assert!(
            said.contains("refused `/home/ann/.config/app.json`"),
            "{said}"
        );
        let cat = note(&def, &["cat: /srv/secret: Permission denied".to_owned()]);
        assert!(cat.contains("refused `/srv/secret`"), "{cat}");
        let plain = note(&def, &["listen EPERM".to_owned()]);
        assert!(plain.contains("a permission error"), "{plain}");
        assert!(!note(&def, &["fine".to_owned()]).contains("missing"));
    }
}
