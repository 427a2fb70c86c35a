//! What a shell and `man` get from the binary: completion scripts for each shell, the man pages
//! (one on stdout, or one per command in a directory), and `--version` naming the commit.

mod common;

use common::Sandbox;

fn stdout(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.cmd().args(args).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn completions_cover_every_command_for_each_shell() {
    let sb = Sandbox::new();
    for (shell, marker) in [
        ("bash", "complete -F _mcpdeck"),
        ("zsh", "#compdef mcpdeck"),
        ("fish", "complete -c mcpdeck"),
    ] {
        let script = stdout(&sb, &["completions", shell]);
        assert!(script.contains(marker), "{shell}: {script}");
        for command in ["hosts", "approvals", "policy", "completions", "man", "call"] {
            assert!(script.contains(command), "{shell} lacks `{command}`");
        }
        // Fixed values are completed too: policy modes, host names.
        assert!(script.contains("enforce"), "{shell} lacks --policy values");
        assert!(script.contains("claude-code"), "{shell} lacks host names");
    }
    sb.cmd()
        .args(["completions", "tcsh"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("invalid value"));
}

#[test]
fn completions_and_man_need_no_usable_configuration() {
    let sb = Sandbox::new();
    sb.write("config/mcpdeck/mcp.json", "{ not json");
    assert!(stdout(&sb, &["completions", "bash"]).contains("_mcpdeck"));
    assert!(stdout(&sb, &["man"]).contains(".TH mcpdeck"));
}

#[test]
fn man_prints_one_page_or_writes_one_per_command() {
    let sb = Sandbox::new();
    let page = stdout(&sb, &["man"]);
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
    let text = stdout(&sb, &["--version"]);
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
