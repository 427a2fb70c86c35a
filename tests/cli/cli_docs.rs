//! What a shell and `man` get from the binary: completion scripts for each shell, the man pages
//! (one on stdout, or one per command in a directory), and `--version` naming the commit.

use crate::common;

use std::path::Path;

use common::Sandbox;

/// What the binary answers when a shell asks (the fish protocol: the words so far, the last one
/// being completed), from `dir` with the sandbox's configuration.
fn complete(sb: &Sandbox, dir: &Path, words: &[&str]) -> Vec<String> {
    let out = sb
        .cmd()
        .current_dir(dir)
        .env("MCPDECK_COMPLETE", "fish")
        .arg("--")
        .arg("mcpdeck")
        .args(words)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn completion_scripts_call_back_into_the_binary_for_each_shell() {
    let sb = Sandbox::new();
    for (shell, marker) in [
        ("bash", "-F _clap_complete_mcpdeck mcpdeck"),
        ("zsh", "#compdef mcpdeck"),
        (
            "fish",
            "complete --keep-order --exclusive --command mcpdeck",
        ),
        ("elvish", "arg-completer[mcpdeck]"),
        (
            "powershell",
            "Register-ArgumentCompleter -Native -CommandName mcpdeck",
        ),
    ] {
        let script = sb.stdout(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("MCPDECK_COMPLETE"), "{shell}: {script}");
    }
    sb.cmd()
        .args(["completions", "tcsh"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("invalid value"));
}

#[test]
fn completion_offers_commands_options_values_and_configured_servers() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"alpha": {"command": "true"}, "beta": {"url": "https://example.com/mcp"}}}"#,
    );
    sb.write(
        "project/.mcpdeck/mcp.json",
        r#"{"mcpServers": {"gamma": {"command": "true"}}}"#,
    );
    let project = sb.project.clone();
    let commands = complete(&sb, &project, &["p"]);
    for c in ["ping", "policy", "prompt", "prompts", "proxy"] {
        assert!(commands.contains(&c.to_owned()), "{c} in {commands:?}");
    }
    // Every configured server of this directory's project, whatever its trust.
    let servers = complete(&sb, &project, &["call", ""]);
    for name in ["alpha", "beta", "gamma"] {
        assert!(servers.contains(&name.to_owned()), "{name} in {servers:?}");
    }
    assert_eq!(complete(&sb, &project, &["describe", "al"]), ["alpha"]);
    assert_eq!(complete(&sb, &project, &["config", "show", "g"]), ["gamma"]);
    assert!(
        complete(&sb, &project, &["call", "alpha", "--no-v"]).contains(&"--no-validate".to_owned())
    );
    assert_eq!(
        complete(&sb, &project, &["serve", "--policy", "en"]),
        ["enforce"]
    );
    assert_eq!(
        complete(&sb, &project, &["hosts", "show", "c"]),
        ["claude-code", "cursor", "codex"]
    );
    // A host's own server names are not mcpdeck's: nothing is offered for them.
    assert!(
        !complete(&sb, &project, &["hosts", "connect", "cursor", ""]).contains(&"alpha".to_owned())
    );
    // Another directory is another project.
    let elsewhere = sb.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("dir");
    assert!(!complete(&sb, &elsewhere, &["call", ""]).contains(&"gamma".to_owned()));
}

/// The script a user sources, run by a real bash: Tab after `mcpdeck call ` lists the servers.
#[test]
fn bash_completes_server_names_through_the_script() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"alpha": {"command": "true"}}}"#,
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_mcpdeck"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = r#"source <(mcpdeck completions bash)
COMP_WORDS=(mcpdeck call "") COMP_CWORD=2 COMP_TYPE=9
_clap_complete_mcpdeck mcpdeck "" call
printf '%s\n' "${COMPREPLY[@]}""#;
    let out = std::process::Command::new("bash")
        .args(["-c", script])
        .current_dir(&sb.project)
        .env_clear()
        .env("PATH", path)
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .output()
        .expect("bash runs");
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(
        words.lines().any(|l| l == "alpha"),
        "{words}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn completions_and_man_need_no_usable_configuration() {
    let sb = Sandbox::new();
    sb.write("config/mcpdeck/mcp.json", "{ not json");
    assert!(sb.stdout(&["completions", "bash"]).contains("_mcpdeck"));
    assert!(sb.stdout(&["man"]).contains(".TH mcpdeck"));
}

#[test]
fn man_prints_one_page_or_writes_one_per_command() {
    let sb = Sandbox::new();
    let page = sb.stdout(&["man"]);
    assert!(page.contains(".TH mcpdeck 1"), "{page}");
    // The page lists every command with a pointer to its own page.
    for command in ["hosts", "approvals", "policy", "completions", "man"] {
        assert!(
            page.contains(&format!("mcpdeck\\-{command}(1)")),
            "{command}"
        );
    }
    let dir = sb.dir.path().join("man1");
    sb.cmd()
        .args(["man", "--out"])
        .arg(&dir)
        .assert()
        .code(0)
        .stderr(predicates::str::contains("pages"));
    for name in [
        "mcpdeck.1",
        "mcpdeck-call.1",
        "mcpdeck-hosts.1",
        "mcpdeck-hosts-import.1",
        "mcpdeck-policy-allow.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains(".TH"), "{name}: {text}");
    }
    let call = std::fs::read_to_string(dir.join("mcpdeck-call.1")).expect("call page");
    assert!(call.contains("no\\-validate"), "{call}");
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let sb = Sandbox::new();
    let text = sb.stdout(&["--version"]);
    let rest = text
        .trim_end()
        .strip_prefix(concat!("mcpdeck ", env!("CARGO_PKG_VERSION"), " (commit "))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unexpected version line: {text}"));
    // Built from this checkout (tests run from one), the commit is HEAD's.
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match head {
        Some(head) => assert!(
            head.starts_with(rest) && rest.len() == 12,
            "version says {rest}, HEAD is {head}"
        ),
        None => assert!(
            rest == "unknown" || rest.bytes().all(|b| b.is_ascii_hexdigit()),
            "{rest}"
        ),
    }
}
