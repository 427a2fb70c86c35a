//! Pins across restarts through the real binary, against the fixture's drift modes (a server
//! whose definitions change between runs): each command is a new mcpdeck process, so what is
//! compared was kept in the state directory. Then `pins export` and `pins check` against a
//! committed pin file on a runner with no state.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt as _;

use common::{Sandbox, fixture};
use serde_json::{Value, json};

/// A sandbox whose server `name` runs `drift --case CASE`, counting its runs in the sandbox.
fn drifting(servers: &[(&str, &str)]) -> Sandbox {
    let sb = Sandbox::new();
    let mut map = serde_json::Map::new();
    for (name, case) in servers {
        let runs = sb.dir.path().join(format!("runs-{name}"));
        map.insert(
            (*name).to_owned(),
            json!({"command": fixture(), "args": ["drift", "--case", case],
                   "env": {"FIXTURE_RUN_FILE": runs}}),
        );
    }
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": map}).to_string(),
    );
    sb
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value) {
    let out = sb
        .cmd()
        .args(args)
        .arg("--json")
        .write_stdin("")
        .output()
        .unwrap();
    let value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), value)
}

fn changes(report: &Value) -> &Vec<Value> {
    report["result"]["changes"].as_array().unwrap()
}

#[test]
fn a_rug_pull_across_restarts_is_shown_rated_and_accepted() {
    let sb = drifting(&[("rug", "rug-pull")]);
    // First process: the listing is the baseline.
    let listed = sb.stdout(&["tools", "rug"]);
    assert!(listed.contains("Deploys the app to staging."), "{listed}");
    let store = sb.dir.path().join(".local/state/mcpdeck/pins");
    let files: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        files.len(),
        1,
        "one file for the one server listed: {files:?}"
    );
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the pin store is private");
    let dir_mode = std::fs::metadata(&store).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700);
    // A new process, and the server changed its definition since.
    let (code, report) = run(&sb, &["pins", "rug"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["result"]["clean"], false);
    let all = changes(&report);
    assert_eq!(all.len(), 1, "{report:#}");
    let deploy = &all[0];
    assert_eq!(
        (deploy["change"].as_str(), deploy["name"].as_str()),
        (Some("changed"), Some("deploy"))
    );
    assert_eq!(
        deploy["ratings"],
        json!(["text", "schema-widened", "destructive-now"])
    );
    let diff: Vec<&str> = deploy["diff"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        diff.contains(&"- /description: Deploys the app to staging."),
        "{diff:?}"
    );
    assert!(
        diff.contains(&"+ /inputSchema/properties/force/type: boolean"),
        "{diff:?}"
    );
    assert!(diff.contains(&"- /inputSchema/required/0: env"), "{diff:?}");
    // Still drifted in the next process, until accepted.
    let text = sb.stdout(&["pins", "rug"]);
    assert!(
        text.contains("changed tool deploy [text, schema-widened, destructive-now]"),
        "{text}"
    );
    let (_, accepted) = run(&sb, &["pins", "rug", "--accept"]);
    assert_eq!(accepted["result"]["accepted"], true);
    let (_, after) = run(&sb, &["pins", "rug"]);
    assert_eq!(after["result"]["clean"], true, "{after:#}");
}

#[test]
fn renames_and_look_alike_names_are_named() {
    let sb = drifting(&[("ren", "rename"), ("look", "look-alike")]);
    sb.stdout(&["tools", "ren"]);
    sb.stdout(&["tools", "look"]);
    let (_, renamed) = run(&sb, &["pins", "ren"]);
    let c = &changes(&renamed)[0];
    assert_eq!(
        (
            c["change"].as_str(),
            c["name"].as_str(),
            c["renamedFrom"].as_str()
        ),
        (Some("renamed"), Some("fetch_url"), Some("fetch_page")),
        "{renamed:#}"
    );
    assert_eq!(
        changes(&renamed).len(),
        1,
        "one rename, not a removal and an addition"
    );
    let (_, look) = run(&sb, &["pins", "look"]);
    let c = &changes(&look)[0];
    assert_eq!(c["name"], "fetch_p\u{430}ge", "{look:#}");
    assert!(
        c["ratings"]
            .as_array()
            .unwrap()
            .contains(&json!("look-alike")),
        "{look:#}"
    );
}

#[test]
fn a_committed_pin_file_catches_drift_on_a_runner_with_no_state() {
    let sb = drifting(&[("rug", "rug-pull")]);
    let (code, exported) = run(&sb, &["pins", "export", "rug"]);
    assert_eq!(code, 0, "{exported:#}");
    let file = sb.project.join(".mcpdeck/pins.json");
    let pinned: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(
        pinned["servers"]["rug"]["pins"]["tool:deploy"]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    // A fresh runner: the same configuration and project, no state directory at all.
    assert!(!Sandbox::new().dir.path().join(".local/state").exists());
    let fresh = Sandbox::new();
    std::fs::create_dir_all(fresh.project.join(".mcpdeck")).unwrap();
    std::fs::copy(&file, fresh.project.join(".mcpdeck/pins.json")).unwrap();
    let config = std::fs::read_to_string(sb.home.join("mcpdeck/mcp.json")).unwrap();
    fresh.write("config/mcpdeck/mcp.json", &config);
    let (code, checked) = run(&fresh, &["pins", "check"]);
    assert_eq!(code, 1, "drift exits 1: {checked:#}");
    let servers = checked["result"]["servers"].as_array().unwrap();
    assert_eq!(servers[0]["changes"][0]["name"], "deploy", "{checked:#}");
    // A catalog that matches the file passes.
    let steady = drifting(&[("ren", "rename")]);
    run(&steady, &["pins", "export"]);
    let (code, ok) = run(
        &steady,
        &[
            "pins",
            "check",
            "--file",
            steady.project.join(".mcpdeck/pins.json").to_str().unwrap(),
            "workspace",
        ],
    );
    assert_eq!(
        (code, ok["result"]["clean"].as_bool()),
        (0, Some(true)),
        "{ok:#}"
    );
}
