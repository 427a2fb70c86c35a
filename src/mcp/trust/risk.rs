//! Risky patterns in a server definition, highlighted when the operator reviews trust
//!: `sudo`, piping a download into a shell, `rm -rf`, absolute paths outside the
//! project, shell `-c` strings, package runners without a pinned version, and environment keys
//! that change how programs load code. Advice only: it never blocks anything.

use std::path::Path;

use crate::mcp::config::{ServerDef, Transport};

/// One risky thing found in a definition.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Risk {
    /// The field it was found in (`command`, `args[2]`, `env.LD_PRELOAD`).
    pub field: String,
    /// Why it deserves a second look.
    pub reason: String,
}

const RUNNERS: &[&str] = &["npx", "bunx", "uvx", "pnpx"];
const LOADER_ENV: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PATH",
    "BASH_ENV",
    "ENV",
];

/// Every risky pattern in `def`; `file_dir` resolves a relative `cwd`.
pub(crate) fn risks(def: &ServerDef, project_root: &Path, file_dir: &Path) -> Vec<Risk> {
    let Transport::Stdio(stdio) = &def.transport else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut push = |field: String, reason: &str| {
        out.push(Risk {
            field,
            reason: reason.to_owned(),
        });
    };
    let words: Vec<(String, &str)> =
        std::iter::once(("command".to_owned(), stdio.command.as_str()))
            .chain(
                stdio
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| (format!("args[{i}]"), a.as_str())),
            )
            .collect();
    let program = program_name(&stdio.command);
    for (field, word) in &words {
        let lower = word.to_ascii_lowercase();
        if matches!(program_name(word), "sudo" | "doas" | "su" | "pkexec") {
            push(field.clone(), "runs with elevated privileges");
        }
        if (lower.contains("curl") || lower.contains("wget"))
            && ["| sh", "|sh", "| bash", "|bash", "| zsh"]
                .iter()
                .any(|p| lower.contains(p))
        {
            push(field.clone(), "pipes a download into a shell");
        }
        if lower.contains("rm -rf") || lower.contains("rm -fr") {
            push(field.clone(), "deletes files recursively");
        }
        if word.starts_with('/')
            && !Path::new(word).starts_with(project_root)
            && !is_system_bin(word)
        {
            push(field.clone(), "absolute path outside the project");
        }
    }
    if matches!(program, "sh" | "bash" | "zsh" | "dash" | "fish")
        && stdio.args.iter().any(|a| a == "-c")
    {
        push("args".to_owned(), "runs an arbitrary shell command string");
    }
    if (RUNNERS.contains(&program) || program == "pipx")
        && let Some((i, package)) = runner_package(&stdio.args)
        && !is_pinned(package)
    {
        push(
            format!("args[{i}]"),
            "package runner without a pinned version: the code can change under you",
        );
    }
    if let Some(cwd) = def.resolved_cwd(file_dir)
        && !cwd.starts_with(project_root)
    {
        push("cwd".to_owned(), "working directory outside the project");
    }
    for key in stdio.env.keys() {
        if LOADER_ENV.contains(&key.to_ascii_uppercase().as_str()) {
            push(
                format!("env.{key}"),
                "changes how programs find or load code",
            );
        }
    }
    let roots = crate::mcp::client::roots::offered_for(def, file_dir, project_root);
    if let Some((reason, _)) = roots.warning() {
        out.push(Risk {
            field: "roots".to_owned(),
            reason,
        });
    }
    out
}

fn program_name(command: &str) -> &str {
    command.rsplit('/').next().unwrap_or(command)
}

fn is_system_bin(path: &str) -> bool {
    [
        "/usr/bin/",
        "/bin/",
        "/usr/local/bin/",
        "/opt/homebrew/bin/",
    ]
    .iter()
    .any(|p| path.starts_with(p))
}

/// The first argument that names a package (not a flag, not `run`/`dlx`).
fn runner_package(args: &[String]) -> Option<(usize, &str)> {
    for (i, arg) in args.iter().enumerate() {
        if matches!(arg.as_str(), "--package" | "-p" | "--from") {
            return args.get(i + 1).map(|p| (i + 1, p.as_str()));
        }
        if arg.starts_with('-') || arg == "run" || arg == "dlx" {
            continue;
        }
        return Some((i, arg));
    }
    None
}

/// `name@1.2.3`, `@scope/name@1.2.3`, `name==1.2` count as pinned; `@latest` and ranges do not.
fn is_pinned(package: &str) -> bool {
    if let Some((_, version)) = package.split_once("==") {
        return version.chars().next().is_some_and(|c| c.is_ascii_digit());
    }
    let body = package.strip_prefix('@').unwrap_or(package);
    body.rsplit_once('@')
        .is_some_and(|(_, version)| version.chars().next().is_some_and(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::{ProtocolChoice, ReconnectPolicy, StdioDef, Template};

    fn def(command: &str, args: &[&str], env: &[&str]) -> ServerDef {
        ServerDef {
            name: "s".into(),
            transport: Transport::Stdio(StdioDef {
                command: command.into(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: None,
                env: env
                    .iter()
                    .map(|k| ((*k).to_owned(), Template::parse("x").expect("valid")))
                    .collect(),
                sandbox: None,
            }),
            request_timeout_ms: None,
            task_timeout_ms: None,
            reconnect: ReconnectPolicy::default(),
            disabled: false,
            protocol: ProtocolChoice::Legacy,
            roots: None,
        }
    }

    fn reasons(d: &ServerDef) -> Vec<String> {
        risks(d, Path::new("/proj"), Path::new("/proj"))
            .into_iter()
            .map(|r| format!("{}: {}", r.field, r.reason))
            .collect()
    }

    #[test]
    fn flags_each_pattern() {
        assert!(
            reasons(&def("sudo", &["node", "x.js"], &[]))[0]
                .starts_with("command: runs with elevated")
        );
        let r = reasons(&def("bash", &["-c", "curl https://x.sh | sh"], &[]));
        assert!(r.iter().any(|r| r.contains("pipes a download")), "{r:?}");
        assert!(
            r.iter().any(|r| r.contains("shell command string")),
            "{r:?}"
        );
        let r = reasons(&def("npx", &["-y", "some-server"], &[]));
        assert_eq!(
            r,
            vec!["args[1]: package runner without a pinned version: the code can change under you"]
        );
        let r = reasons(&def("/home/me/bin/server", &["rm -rf /"], &["LD_PRELOAD"]));
        assert_eq!(r.len(), 3, "{r:?}");
    }

    #[test]
    fn pinned_and_local_are_quiet() {
        assert!(
            reasons(&def(
                "npx",
                &["-y", "@modelcontextprotocol/server-everything@2025.11.25"],
                &[]
            ))
            .is_empty()
        );
        assert!(reasons(&def("uvx", &["mcp-server-git==0.6.2"], &[])).is_empty());
        assert!(reasons(&def("/proj/bin/server", &["--port", "1"], &["LOG_LEVEL"])).is_empty());
        assert!(reasons(&def("/usr/bin/python3", &["server.py"], &[])).is_empty());
        assert!(!is_pinned("pkg@latest"));
    }
}
