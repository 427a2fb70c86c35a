//! The typed graph of a workspace: file kinds as node types, and relative links
//! between admitted files as edges (Markdown links, `include`/`import` of relative paths).
//!
//! Link extraction works on text only and resolves targets lexically inside the root; a target
//! becomes an edge only when it is an admitted file. Pure functions; no IO.

use std::collections::BTreeSet;

/// Every file kind, as `type_filters` name them.
pub const KINDS: &[&str] = &[
    "markdown",
    "rust",
    "json",
    "toml",
    "yaml",
    "python",
    "typescript",
    "javascript",
    "shell",
    "text",
    "mcp-config",
];

/// Whether a workspace-relative path is an MCP configuration file mcpdeck reads.
pub fn is_mcp_config(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == ".mcp.json" || name == "mcp.json"
}

/// The kind of a workspace-relative path.
pub fn kind_of(rel: &str) -> &'static str {
    if is_mcp_config(rel) {
        return "mcp-config";
    }
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "md" | "markdown" | "mdx" => "markdown",
        "rs" => "rust",
        "json" | "jsonc" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "py" | "pyi" => "python",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "sh" | "bash" | "zsh" => "shell",
        _ => "text",
    }
}

/// One relative reference found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (characters) of the target.
    pub column: u32,
    /// The target as written (without any `#fragment` or `?query`).
    pub target: String,
}

/// Relative link targets in Markdown (`[text](target)`, `![alt](target)`, `[ref]: target`),
/// outside fenced code blocks.
pub fn markdown_links(text: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut search = 0;
        while let Some(pos) = line[search..].find("](") {
            let start = search + pos + 2;
            let rest = &line[start..];
            let end = rest.find(')').unwrap_or(rest.len());
            let inner = rest[..end].trim();
            let target = inner.split_whitespace().next().unwrap_or("");
            let target = target.trim_start_matches('<').trim_end_matches('>');
            push_relative(&mut out, line_no, line, start, target);
            search = start + end;
        }
        if let Some(rest) = t.strip_prefix('[')
            && let Some(close) = rest.find("]:")
        {
            let after = &rest[close + 2..];
            let target = after.split_whitespace().next().unwrap_or("");
            let offset = line.len() - after.trim_start().len();
            push_relative(&mut out, line_no, line, offset, target);
        }
    }
    out
}

fn push_relative(out: &mut Vec<Reference>, line_no: u32, line: &str, byte: usize, target: &str) {
    let target = target.split(['#', '?']).next().unwrap_or("");
    if target.is_empty() || target.starts_with('/') || target.contains("://") || has_scheme(target)
    {
        return;
    }
    let column = line.get(..byte).map_or(1, |p| p.chars().count() + 1);
    out.push(Reference {
        line: line_no,
        column: u32::try_from(column).unwrap_or(u32::MAX),
        target: target.to_owned(),
    });
}

/// `mailto:x`, `data:…`, `tel:…`: a scheme before any `/`.
fn has_scheme(target: &str) -> bool {
    let head = target.split('/').next().unwrap_or("");
    head.contains(':')
}

/// Relative `include`/`import` targets of source files, per kind.
pub fn includes(kind: &str, text: &str) -> Vec<Reference> {
    let scan: fn(&mut Vec<Reference>, u32, &str, &str) = match kind {
        "rust" => rust_includes,
        "typescript" | "javascript" => script_imports,
        "python" => python_imports,
        "shell" => shell_sources,
        "text" => c_includes,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        scan(&mut out, line_no, line, line.trim());
    }
    out
}

/// `include_str!`/`include_bytes!`/`include!` of a string, and `mod name;` (either file layout).
/// `t` is `line` trimmed.
fn rust_includes(out: &mut Vec<Reference>, line_no: u32, line: &str, t: &str) {
    for mac in ["include_str!(", "include_bytes!(", "include!("] {
        if let Some(p) = t.find(mac)
            && let Some(s) = quoted(&t[p + mac.len()..])
        {
            push_relative(out, line_no, line, 0, s);
        }
    }
    if let Some(name) = t
        .strip_prefix("mod ")
        .or_else(|| t.strip_prefix("pub mod "))
        .or_else(|| t.strip_prefix("pub(crate) mod "))
        .and_then(|r| r.strip_suffix(';'))
    {
        for target in [
            format!("{}.rs", name.trim()),
            format!("{}/mod.rs", name.trim()),
        ] {
            out.push(Reference {
                line: line_no,
                column: 1,
                target,
            });
        }
    }
}

/// `from "./x"`, `require("./x")`, `import("./x")`, with each extension a resolver tries.
fn script_imports(out: &mut Vec<Reference>, line_no: u32, line: &str, t: &str) {
    for key in [" from ", "require(", "import("] {
        if let Some(p) = t.find(key)
            && let Some(s) = quoted(&t[p + key.len()..])
            && (s.starts_with("./") || s.starts_with("../"))
        {
            for ext in [
                "",
                ".ts",
                ".tsx",
                ".js",
                ".mjs",
                ".jsx",
                "/index.ts",
                "/index.js",
            ] {
                push_relative(out, line_no, line, 0, &format!("{s}{ext}"));
            }
        }
    }
}

/// `from .module import …` (one `../` per extra dot), as a module file or a package; in
/// `from . import a, b` the names are the modules.
fn python_imports(out: &mut Vec<Reference>, line_no: u32, line: &str, t: &str) {
    let Some(r) = t.strip_prefix("from .") else {
        return;
    };
    let dots = 1 + r.bytes().take_while(|b| *b == b'.').count();
    let up = "../".repeat(dots - 1);
    let rest = &r[dots - 1..];
    let modules: Vec<&str> = match rest.trim_start().strip_prefix("import ") {
        Some(names) if rest.starts_with(char::is_whitespace) => names
            .split(',')
            .filter_map(|n| n.trim_matches([' ', '(', ')']).split_whitespace().next())
            .collect(),
        _ => rest.split_whitespace().next().into_iter().collect(),
    };
    for module in modules {
        let base = format!("{up}{}", module.replace('.', "/"));
        push_relative(out, line_no, line, 0, &format!("{base}.py"));
        push_relative(out, line_no, line, 0, &format!("{base}/__init__.py"));
    }
}

/// `source file` and `. file`, unless the path uses a variable.
fn shell_sources(out: &mut Vec<Reference>, line_no: u32, line: &str, t: &str) {
    let Some(r) = t.strip_prefix("source ").or_else(|| t.strip_prefix(". ")) else {
        return;
    };
    let target = r
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(['"', '\'']);
    if !target.contains('$') {
        push_relative(out, line_no, line, 0, target);
    }
}

/// `#include "file"` (C-like sources, which the index calls text).
fn c_includes(out: &mut Vec<Reference>, line_no: u32, line: &str, t: &str) {
    if let Some(r) = t.strip_prefix("#include")
        && let Some(s) = quoted(r.trim_start())
    {
        push_relative(out, line_no, line, 0, s);
    }
}

/// The content of a leading `"…"` or `'…'` string.
fn quoted(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let q = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &s[1..];
    rest.find(q).map(|end| &rest[..end])
}

/// Resolves `target` relative to the directory of `from` (both workspace-relative), lexically;
/// `None` when it leaves the root.
pub fn resolve(from: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    let decoded = target.replace("%20", " ");
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    // `parts` borrows `decoded`; build the owned result before it goes away.
    let joined = parts.join("/");
    (!joined.is_empty()).then_some(joined)
}

/// The edge targets of one file that are admitted files (`nodes` holds every admitted path).
pub fn edges(from: &str, kind: &str, text: &str, nodes: &BTreeSet<String>) -> BTreeSet<String> {
    let refs = if kind == "markdown" {
        markdown_links(text)
    } else {
        includes(kind, text)
    };
    refs.iter()
        .filter_map(|r| resolve(from, &r.target))
        .filter(|t| t != from && nodes.contains(t))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(kind_of("a/.mcp.json"), "mcp-config");
        assert_eq!(kind_of(".mcpdeck/mcp.json"), "mcp-config");
        assert_eq!(kind_of("x.json"), "json");
        assert_eq!(kind_of("README.md"), "markdown");
        assert_eq!(kind_of("Makefile"), "text");
        assert_eq!(kind_of("s.YML"), "yaml");
    }

    #[test]
    fn markdown_links_are_relative_only() {
        let text = "see [a](docs/a.md#x) and [b](https://x.y) [c](mailto:q@r)\n```\n[d](d.md)\n```\n[e]: ../e.md\n![i](img.png \"t\")";
        let t: Vec<String> = markdown_links(text).into_iter().map(|r| r.target).collect();
        assert_eq!(t, ["docs/a.md", "../e.md", "img.png"]);
    }

    #[test]
    fn resolution_stays_in_the_root() {
        assert_eq!(
            resolve("docs/x.md", "../README.md").as_deref(),
            Some("README.md")
        );
        assert_eq!(resolve("docs/x.md", "./y.md").as_deref(), Some("docs/y.md"));
        assert_eq!(resolve("x.md", "../out.md"), None);
    }

    #[test]
    fn includes_give_every_candidate_target_with_its_line() {
        let targets = |kind: &str, text: &str| -> Vec<(u32, String)> {
            includes(kind, text)
                .into_iter()
                .map(|r| (r.line, r.target))
                .collect()
        };
        let owned = |v: &[(u32, &str)]| -> Vec<(u32, String)> {
            v.iter().map(|(l, t)| (*l, (*t).to_owned())).collect()
        };
        assert_eq!(
            targets(
                "rust",
                "pub mod a;\nconst T: &str = include_str!(\"t.txt\");\nmod b { }\n"
            ),
            owned(&[(1, "a.rs"), (1, "a/mod.rs"), (2, "t.txt")])
        );
        assert_eq!(
            targets("python", "import os\nfrom ..pkg.m import x\n"),
            owned(&[(2, "../pkg/m.py"), (2, "../pkg/m/__init__.py")])
        );
        // The names of `from . import` are the modules (not a module called `import`).
        assert_eq!(
            targets("python", "from . import a, b as c\nfrom .. import (d)\n"),
            owned(&[
                (1, "a.py"),
                (1, "a/__init__.py"),
                (1, "b.py"),
                (1, "b/__init__.py"),
                (2, "../d.py"),
                (2, "../d/__init__.py"),
            ])
        );
        assert_eq!(
            targets("shell", "source ./lib.sh\n. \"$HOME/x.sh\"\n"),
            owned(&[(1, "./lib.sh")])
        );
        assert_eq!(
            targets("text", "#include <stdio.h>\n#include \"util.h\"\n"),
            owned(&[(2, "util.h")])
        );
        let js = targets(
            "javascript",
            "const y = require('../y');\nimport z from 'z';\n",
        );
        assert_eq!(js.len(), 8, "{js:?}");
        assert_eq!(js[0], (1, "../y".to_owned()));
        assert_eq!(js[7], (1, "../y/index.js".to_owned()));
        assert!(targets("markdown", "mod a;\n").is_empty());
    }

    #[test]
    fn includes_per_kind() {
        let nodes: BTreeSet<String> = [
            "src/a.rs",
            "src/lib.rs",
            "src/b.ts",
            "src/c.ts",
            "pkg/m.py",
            "pkg/n.py",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let e = edges("src/lib.rs", "rust", "mod a;\n", &nodes);
        assert!(e.contains("src/a.rs"));
        let e = edges(
            "src/b.ts",
            "typescript",
            "import { x } from './c';\n",
            &nodes,
        );
        assert!(e.contains("src/c.ts"));
        let e = edges("pkg/m.py", "python", "from .n import q\n", &nodes);
        assert!(e.contains("pkg/n.py"));
    }
}
