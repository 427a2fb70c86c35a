//! A configuration string as another host reads it: literal text and the variables that host
//! would substitute, in order. Each host has its own syntax; this module parses and writes each
//! one, so the rest of `hosts` compares, converts and resolves definitions without caring which
//! host wrote them. Nothing here reads the environment.

/// One piece of a host's configuration string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Lit(String),
    /// An environment variable (`${NAME}`, `${env:NAME}`, `$NAME`, …).
    Env(String),
    /// Claude Code's `${NAME:-default}`: the variable, or the default when it is unset.
    EnvDefault(String, String),
    /// VS Code's `${input:id}`: the operator is prompted for a value.
    Input(String),
    /// A host-defined variable such as `${workspaceFolder}` or `${userHome}`.
    Builtin(String),
    /// Windsurf's `${file:/path}`: the contents of a file.
    File(String),
}

/// A host's configuration string, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text(pub Vec<Piece>);

/// Which substitution syntax a host applies to its configuration strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Claude Code: `${NAME}` and `${NAME:-default}`.
    Claude,
    /// VS Code: `${env:NAME}`, `${input:id}` and predefined variables.
    VsCode,
    /// Cursor: `${env:NAME}` and predefined variables (no inputs).
    Cursor,
    /// Windsurf: `${env:NAME}` and `${file:/path}`.
    Windsurf,
    /// Gemini CLI: `$NAME` and `${NAME}`.
    Gemini,
    /// Codex: no substitution; values are literal.
    None,
}

/// Predefined variables VS Code and Cursor substitute.
const BUILTINS: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "pathSeparator",
    "/",
];

fn is_name(name: &str) -> bool {
    crate::mcp::config::refs::is_var_name(name)
}

impl Text {
    /// A literal string.
    pub fn lit(s: &str) -> Self {
        Self(vec![Piece::Lit(s.to_owned())])
    }

    /// Parses `source` in `syntax`. Unrecognised `${…}` forms stay literal and are returned as
    /// the second value (the host would leave them as written).
    pub fn parse(source: &str, syntax: Syntax) -> (Self, Vec<String>) {
        let mut pieces = Vec::new();
        let mut unknown = Vec::new();
        let mut lit = String::new();
        let mut rest = source;
        while let Some(pos) = rest.find('$') {
            lit.push_str(&rest[..pos]);
            let after = &rest[pos + 1..];
            if let Some(inner) = after.strip_prefix('{')
                && let Some(end) = inner.find('}')
                && syntax != Syntax::None
            {
                let body = &inner[..end];
                if let Some(piece) = braced(body, syntax) {
                    flush(&mut pieces, &mut lit);
                    pieces.push(piece);
                } else {
                    unknown.push(format!("${{{body}}}"));
                    lit.push_str(&rest[pos..=pos + 2 + end]);
                }
                rest = &inner[end + 1..];
                continue;
            }
            if syntax == Syntax::Gemini {
                let len = after
                    .char_indices()
                    .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                    .map_or(after.len(), |(i, _)| i);
                if len > 0 && is_name(&after[..len]) {
                    flush(&mut pieces, &mut lit);
                    pieces.push(Piece::Env(after[..len].to_owned()));
                    rest = &after[len..];
                    continue;
                }
            }
            lit.push('$');
            rest = after;
        }
        lit.push_str(rest);
        flush(&mut pieces, &mut lit);
        (Self(pieces), unknown)
    }

    /// Whether the text holds no variable at all.
    pub fn is_literal(&self) -> bool {
        self.0.iter().all(|p| matches!(p, Piece::Lit(_)))
    }

    /// The text when it is wholly literal.
    pub fn literal(&self) -> Option<String> {
        self.is_literal().then(|| {
            self.0
                .iter()
                .map(|p| match p {
                    Piece::Lit(s) => s.as_str(),
                    _ => "",
                })
                .collect()
        })
    }

    /// Adjacent literals merged and empty ones dropped, so equal meanings compare equal.
    #[must_use]
    pub fn normalised(&self) -> Self {
        let mut out: Vec<Piece> = Vec::new();
        for piece in &self.0 {
            match (out.last_mut(), piece) {
                (_, Piece::Lit(s)) if s.is_empty() => {}
                (Some(Piece::Lit(prev)), Piece::Lit(s)) => prev.push_str(s),
                (_, p) => out.push(p.clone()),
            }
        }
        Self(out)
    }

    /// Writes the text in `syntax`, or says why that host cannot express it.
    pub fn render(&self, syntax: Syntax) -> Result<String, String> {
        let mut out = String::new();
        for piece in &self.normalised().0 {
            match piece {
                Piece::Lit(s) => {
                    let ambiguous = match syntax {
                        Syntax::None => false,
                        Syntax::Gemini => s.contains('$'),
                        _ => s.contains("${"),
                    };
                    if ambiguous {
                        return Err(format!(
                            "the literal `{s}` would be read as a variable by this host"
                        ));
                    }
                    out.push_str(s);
                }
                Piece::Env(name) => match syntax {
                    Syntax::Claude | Syntax::Gemini => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                    Syntax::VsCode | Syntax::Cursor | Syntax::Windsurf => {
                        out.push_str("${env:");
                        out.push_str(name);
                        out.push('}');
                    }
                    Syntax::None => {
                        return Err(format!(
                            "this host does not substitute variables (`{name}`)"
                        ));
                    }
                },
                other => {
                    return Err(format!(
                        "{} cannot be written for this host",
                        describe(other)
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Every variable-like piece, in order.
    pub fn variables(&self) -> impl Iterator<Item = &Piece> {
        self.0.iter().filter(|p| !matches!(p, Piece::Lit(_)))
    }
}

/// How a variable piece reads in messages.
pub(crate) fn describe(piece: &Piece) -> String {
    match piece {
        Piece::Lit(s) => format!("`{s}`"),
        Piece::Env(n) => format!("variable `{n}`"),
        Piece::EnvDefault(n, _) => format!("variable `{n}` with a default"),
        Piece::Input(id) => format!("input prompt `{id}`"),
        Piece::Builtin(n) => format!("`${{{n}}}`"),
        Piece::File(p) => format!("file reference `{p}`"),
    }
}

fn flush(pieces: &mut Vec<Piece>, lit: &mut String) {
    if !lit.is_empty() {
        pieces.push(Piece::Lit(std::mem::take(lit)));
    }
}

fn braced(body: &str, syntax: Syntax) -> Option<Piece> {
    match syntax {
        Syntax::Claude => {
            if let Some((name, default)) = body.split_once(":-") {
                return is_name(name).then(|| Piece::EnvDefault(name.into(), default.into()));
            }
            is_name(body).then(|| Piece::Env(body.into()))
        }
        Syntax::Gemini => is_name(body).then(|| Piece::Env(body.into())),
        Syntax::VsCode | Syntax::Cursor | Syntax::Windsurf => {
            if let Some(name) = body.strip_prefix("env:") {
                return is_name(name).then(|| Piece::Env(name.into()));
            }
            if syntax == Syntax::VsCode
                && let Some(id) = body.strip_prefix("input:")
            {
                return (!id.is_empty()).then(|| Piece::Input(id.into()));
            }
            if syntax == Syntax::Windsurf
                && let Some(path) = body.strip_prefix("file:")
            {
                return (!path.is_empty()).then(|| Piece::File(path.into()));
            }
            (syntax != Syntax::Windsurf && BUILTINS.contains(&body))
                .then(|| Piece::Builtin(body.into()))
        }
        Syntax::None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_syntax_reads_its_own_forms() {
        let (t, unknown) = Text::parse("Bearer ${TOKEN}", Syntax::Claude);
        assert_eq!(
            t.0,
            vec![Piece::Lit("Bearer ".into()), Piece::Env("TOKEN".into())]
        );
        assert!(unknown.is_empty());
        let (t, _) = Text::parse("${URL:-http://x}/mcp", Syntax::Claude);
        assert_eq!(
            t.0,
            vec![
                Piece::EnvDefault("URL".into(), "http://x".into()),
                Piece::Lit("/mcp".into())
            ]
        );
        let (t, unknown) = Text::parse(
            "${env:A}-${input:key}-${workspaceFolder}-${nope}",
            Syntax::VsCode,
        );
        assert_eq!(
            t.0,
            vec![
                Piece::Env("A".into()),
                Piece::Lit("-".into()),
                Piece::Input("key".into()),
                Piece::Lit("-".into()),
                Piece::Builtin("workspaceFolder".into()),
                Piece::Lit("-${nope}".into()),
            ]
        );
        assert_eq!(unknown, vec!["${nope}".to_owned()]);
        let (t, _) = Text::parse("$HOME/x:${B}", Syntax::Gemini);
        assert_eq!(
            t.0,
            vec![
                Piece::Env("HOME".into()),
                Piece::Lit("/x:".into()),
                Piece::Env("B".into())
            ]
        );
        let (t, _) = Text::parse("${env:A}", Syntax::None);
        assert!(t.is_literal());
        let (t, _) = Text::parse("${input:x}", Syntax::Cursor);
        assert!(t.is_literal(), "Cursor has no inputs");
    }

    #[test]
    fn render_round_trips_and_refuses_the_inexpressible() {
        for syntax in [
            Syntax::Claude,
            Syntax::VsCode,
            Syntax::Cursor,
            Syntax::Windsurf,
            Syntax::Gemini,
        ] {
            let text = Text(vec![Piece::Lit("Bearer ".into()), Piece::Env("T".into())]);
            let written = text.render(syntax).expect("expressible");
            assert_eq!(Text::parse(&written, syntax).0, text, "{syntax:?}");
        }
        assert!(Text::lit("a ${b}").render(Syntax::Claude).is_err());
        assert!(Text::lit("$5").render(Syntax::Gemini).is_err());
        assert!(
            Text(vec![Piece::Env("T".into())])
                .render(Syntax::None)
                .is_err()
        );
    }
}
