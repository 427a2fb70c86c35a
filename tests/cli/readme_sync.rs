//! The README is the user's manual, so what the program offers must be named there: every
//! command `mcpdeck --help` lists, every global option, and every key context and action of the
//! default keymap (`assets/keymap.toml`, the names a user's `keys.toml` can use).

use crate::common;

use common::Sandbox;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README")
}

fn help(args: &[&str]) -> String {
    let out = Sandbox::new().cmd().args(args).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The lines of `text` after the line `heading` up to the next blank line.
fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

#[test]
fn every_command_is_in_the_readme() {
    let readme = readme();
    let top = help(&["--help"]);
    let commands: Vec<&str> = section(&top, "Commands:")
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 20, "{top}");
    let missing: Vec<_> = commands
        .iter()
        .filter(|c| !readme.contains(&format!("`mcpdeck {c}")))
        .collect();
    assert!(
        missing.is_empty(),
        "commands the README never names: {missing:?}"
    );
}

#[test]
fn every_global_option_is_in_the_readme() {
    let readme = readme();
    let status = help(&["status", "-h"]);
    let options: Vec<&str> = section(&status, "Global options:")
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(options.contains(&"--cwd"), "{status}");
    let missing: Vec<_> = options
        .iter()
        .filter(|o| !readme.contains(&format!("`{o}")))
        .collect();
    assert!(
        missing.is_empty(),
        "global options the README never names: {missing:?}"
    );
}

#[test]
fn every_keymap_context_and_action_is_in_the_readme() {
    let readme = readme();
    let keymap: toml::Table = toml::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/keymap.toml"))
            .expect("keymap"),
    )
    .expect("keymap parses");
    let mut missing = Vec::new();
    for (context, bindings) in &keymap {
        if !readme.contains(&format!("`{context}`")) {
            missing.push(format!("context {context}"));
        }
        for binding in bindings.as_array().expect("a context is a list") {
            let action = binding["action"].as_str().expect("an action name");
            if !readme.contains(&format!("`{action}`")) && !missing.contains(&action.to_owned()) {
                missing.push(action.to_owned());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keymap names the README never mentions: {missing:?}"
    );
}
