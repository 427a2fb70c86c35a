//! The packaged `workspace` server runs confined by default: read-only to the project it is
//! bound to, no network — and its tools still answer, through the real binary.

#![allow(clippy::unwrap_used)]

use crate::common::Sandbox;

#[test]
fn the_packaged_workspace_server_is_sandboxed_to_its_root_and_still_answers() {
    let sb = Sandbox::new();
    sb.write(
        "project/README.md",
        "# Tool\n\n## Sandboxed search\n\nThe workspace server reads the project only.\n",
    );
    let root = std::fs::canonicalize(&sb.project).unwrap();
    let status = sb.server("workspace");
    assert_eq!(
        status["sandbox"],
        format!(
            "read {} · write none · exec command · net none",
            root.display()
        )
    );
    let alias = root.file_name().unwrap().to_string_lossy().into_owned();
    let out = sb
        .cmd()
        .args(["call", "workspace", "workspace_find"])
        .arg(format!(
            r#"{{"workspace": "{alias}", "question": "sandboxed search"}}"#
        ))
        .arg("--json")
        .write_stdin("")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("README.md"), "{text}");
}
