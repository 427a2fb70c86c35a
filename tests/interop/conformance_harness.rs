//! A curated set of the official MCP conformance harness's client scenarios
//! (`@modelcontextprotocol/conformance`, pinned with its Node 22 by `scripts/install-conformance`
//! into `tests/interop/conformance/`), run against mcpdeck's command line through the same adapter
//! as `scripts/conformance` (`tests/interop/conformance/client.mjs`): input-required rounds,
//! request metadata and version negotiation, the standard and custom headers, skills (no file
//! fetched before it is asked for; size, digest and front matter verified). Every check of a
//! scenario must pass with `protocolVersion` unset, `auto` and `2026-07-28`. Fails under
//! `CI=true` when the harness is missing; the whole suite is `scripts/conformance`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/conformance")
}

/// Runs `scenario` with `protocolVersion` `setting` (empty: unset); returns every check.
fn run(scenario: &str, setting: &str) -> Vec<Value> {
    run_at(scenario, setting, None)
}

/// [`run`], with the harness's `--spec-version` when `spec` is given (its mock servers then
/// speak that revision: the authorization scenarios' servers answer `server/discover` only at
/// 2026-07-28).
pub(crate) fn run_at(scenario: &str, setting: &str, spec: Option<&str>) -> Vec<Value> {
    run_with_env(scenario, setting, spec, &[])
}

/// [`run_at`], with `env` added to the adapter's environment (the auth adapter's case choices).
pub(crate) fn run_with_env(
    scenario: &str,
    setting: &str,
    spec: Option<&str>,
    env: &[(&str, &str)],
) -> Vec<Value> {
    let Some((node, entry)) = crate::common::peers::conformance() else {
        return Vec::new();
    };
    let out = tempfile::tempdir().expect("temp dir");
    let client = format!("{} {}", node.display(), dir().join("client.mjs").display());
    let status = Command::new(&node)
        .arg(&entry)
        .args(["client", "--command", &client, "--scenario", scenario])
        .args(spec.map(|v| ["--spec-version", v]).into_iter().flatten())
        .arg("-o")
        .arg(out.path())
        .env("MCPDECK", env!("CARGO_BIN_EXE_mcpdeck"))
        .env("MCPDECK_CONFORMANCE_PROTOCOL", setting)
        .envs(env.iter().copied())
        .output()
        .expect("the harness runs");
    let mut checks = Vec::new();
    // A scenario's results are in `<name>-<time>/`, under `auth/` for an `auth/…` scenario.
    let results = match scenario.split_once('/') {
        Some((group, _)) => out.path().join(group),
        None => out.path().to_path_buf(),
    };
    for entry in std::fs::read_dir(&results).unwrap_or_else(|e| {
        panic!(
            "{scenario} ({setting:?}): no results ({e}): {}",
            String::from_utf8_lossy(&status.stdout)
        )
    }) {
        let file = entry.expect("entry").path().join("checks.json");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
            panic!(
                "{scenario} ({setting:?}): no {} ({e}): {}",
                file.display(),
                String::from_utf8_lossy(&status.stderr)
            )
        });
        let parsed: Vec<Value> = serde_json::from_str(&text).expect("checks.json");
        checks.extend(parsed);
    }
    checks
}

/// Every check of `scenario` passes (none fails, some succeed) in each setting.
fn passes_everywhere(scenario: &str) {
    if crate::common::peers::conformance().is_none() {
        return;
    }
    for setting in ["", "auto", "2026-07-28"] {
        let checks = run(scenario, setting);
        let failed: Vec<&Value> = checks.iter().filter(|c| c["status"] == "FAILURE").collect();
        assert!(
            failed.is_empty(),
            "{scenario} ({setting:?}): {}",
            serde_json::to_string_pretty(&failed).unwrap_or_default()
        );
        assert!(
            checks.iter().any(|c| c["status"] == "SUCCESS"),
            "{scenario} ({setting:?}): no check passed: {checks:?}"
        );
    }
}

#[test]
fn input_required_rounds_echo_the_state_with_a_new_id() {
    passes_everywhere("sep-2322-client-request-state");
}

#[test]
fn request_metadata_and_version_negotiation() {
    passes_everywhere("request-metadata");
}

#[test]
fn standard_headers_on_every_post() {
    passes_everywhere("http-standard-headers");
}

#[test]
fn custom_headers_from_tool_parameters() {
    passes_everywhere("http-custom-headers");
}

#[test]
fn tools_with_invalid_header_annotations() {
    passes_everywhere("http-invalid-tool-headers");
}

#[test]
fn skills_are_listed_without_fetching_their_files() {
    passes_everywhere("sep-2640-client-no-prefetch");
}

#[test]
fn a_skill_whose_digest_size_or_front_matter_differs_is_refused() {
    for scenario in [
        "sep-2640-client-verify-digest",
        "sep-2640-client-verify-size",
        "sep-2640-client-verify-frontmatter",
    ] {
        passes_everywhere(scenario);
    }
}
