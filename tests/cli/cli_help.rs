//! What a newcomer reads first, through the real binary: `--help` puts a command's own options
//! before the options every command takes and says what mcpdeck does without a command, and the
//! listings count in words (`1 prompt`, `5 tools`) and name a server's resource templates, and
//! asking for the demo server once servers of one's own are configured says how to get it.

use crate::common;

use common::Sandbox;

/// Where `needle` starts in `text`, or a failure that shows the text.
fn at(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in:\n{text}"))
}

#[test]
fn a_commands_help_lists_its_own_options_before_the_global_ones() {
    let sb = Sandbox::new();
    let help = sb.stdout(&["call", "--help"]);
    let own = at(&help, "\nOptions:");
    let global = at(&help, "\nGlobal options:");
    for flag in [
        "--task",
        "--no-validate",
        "--output <DIR>",
        "--full",
        "--json",
    ] {
        let i = at(&help, flag);
        assert!(
            own < i && i < global,
            "{flag} is not among call's own options:\n{help}"
        );
    }
    for flag in [
        "--cwd <DIR>",
        "--config <FILE>",
        "--demo",
        "--login",
        "--log-level",
    ] {
        assert!(
            at(&help, flag) > global,
            "{flag} is not a global option:\n{help}"
        );
    }
}

#[test]
fn top_level_help_says_what_no_command_does_and_names_the_exit_codes() {
    let sb = Sandbox::new();
    let help = sb.stdout(&["--help"]);
    assert!(
        help.contains("Without a command, mcpdeck opens the terminal console"),
        "{help}"
    );
    assert!(help.contains("3 auth required") && help.contains("7 a bound was hit"));
}

#[test]
fn listings_count_in_words_and_name_the_resource_templates() {
    let sb = Sandbox::new();
    let prompts = sb.stdout(&["--demo", "prompts", "demo"]);
    assert!(prompts.starts_with("1 prompt on demo:\n"), "{prompts}");
    let tools = sb.stdout(&["--demo", "tools", "demo"]);
    assert!(tools.starts_with("5 tools on demo:\n"), "{tools}");
    let matches = sb.stdout(&["--demo", "tools", "demo", "--search", "number"]);
    assert!(
        matches.starts_with("1 match for \"number\" on demo:\n"),
        "{matches}"
    );
    let resources = sb.stdout(&["--demo", "resources", "demo"]);
    assert!(
        resources.starts_with("2 resources on demo:\n"),
        "{resources}"
    );
    assert!(
        resources.contains(
            "1 resource template (listed for reference; read resources by reference): note."
        ),
        "the template is named, never its URI: {resources}"
    );
    assert!(!resources.contains("demo://notes"), "{resources}");
    let templates = sb.stdout(&["--demo", "templates", "demo"]);
    assert!(
        templates.starts_with("1 resource template on demo:\n- note demo://notes/{id}"),
        "{templates}"
    );
}

#[test]
fn the_demo_server_missing_says_that_demo_adds_it() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"mine": {"command": "true"}}}"#,
    );
    let out = sb.cmd().args(["tools", "demo"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no configured server is named `demo`")
            && stderr.contains("`--demo` adds it"),
        "{stderr}"
    );
    // With --demo it is there.
    let listed = sb.stdout(&["--demo", "tools", "demo"]);
    assert!(listed.starts_with("5 tools on demo:"), "{listed}");
}
