//! Runs the console's tmux scripts (`tests/console_tmux*.sh`) against the built binary when
//! `tmux` (and, for some, node and the pinned reference server) is installed; skips otherwise
//! (`common::peers`: fails under `CI=true`).

use std::ffi::OsStr;
use std::process::Command;

/// Runs `tests/<script>` with the mcpdeck binary and `args`, and fails with its output when it
/// does not succeed.
fn run_script(script: &str, args: &[&OsStr]) {
    let path = format!("{}/tests/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(path)
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .args(args)
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "{script} failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `tests/console_tmux.sh`: the console's first screen, a search, a call, the workspace panel,
/// the help and quitting, at 80x24.
#[test]
fn console_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script("console_tmux.sh", &[]);
}

/// `tests/console_tmux_resource.sh`: a 204-line resource of the pinned reference server reaches
/// its last line with End.
#[test]
fn console_reaches_a_long_resource_end_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let Some(server) = crate::common::peers::everything() else {
        return;
    };
    run_script("console_tmux_resource.sh", &[server.as_os_str()]);
}

/// `tests/console_tmux_asks.sh`: an elicitation and a sampling request of the pinned reference
/// server answered in the console.
#[test]
fn console_answers_an_elicitation_and_a_sampling_request_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let Some(server) = crate::common::peers::everything() else {
        return;
    };
    run_script("console_tmux_asks.sh", &[server.as_os_str()]);
}

/// `tests/console_tmux_live.sh`: files written while the console runs — a new project file's
/// server appears untrusted within 2 s, a user file's new server appears, an edited trusted file
/// turns `changed`, F5 reloads.
#[test]
fn console_notices_its_configuration_change_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script("console_tmux_live.sh", &[]);
}

/// `tests/console_tmux_auth.sh`: sign in and out from the console against the fixture's
/// authorization server.
#[test]
fn console_signs_in_and_out_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script(
        "console_tmux_auth.sh",
        &[OsStr::new(crate::common::fixture())],
    );
}

/// `tests/console_tmux_whole.sh`: a 1 MB resource of the fixture reaches its last line with End
/// and a search in it lands on the match; `y` copies all of a 160 KB resource (read back from
/// tmux's buffer with `set-clipboard on`).
#[test]
fn console_reads_and_copies_whole_results_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script(
        "console_tmux_whole.sh",
        &[OsStr::new(crate::common::fixture())],
    );
}

/// `tests/console_tmux_skills.sh`: a server that declares the skills extension (the fixture's
/// `--skills`) shows a Skills tab that lists its skill, and Enter reads the skill verified.
#[test]
fn console_lists_and_reads_skills_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script(
        "console_tmux_skills.sh",
        &[OsStr::new(crate::common::fixture())],
    );
}

/// `tests/console_tmux_tasks.sh`: a protocol 2026-07-28 server's task (the fixture's
/// `task-modern`) is listed in the Tasks view as this session's, and `x` cancels it with
/// `tasks/cancel`.
#[test]
fn console_lists_and_cancels_a_2026_task_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script(
        "console_tmux_tasks.sh",
        &[OsStr::new(crate::common::fixture())],
    );
}

/// `tests/console_tmux_lists.sh`: the Tools tab refreshes when a 2026 server (the fixture's
/// `listen-grow`) sends `notifications/tools/list_changed` on the console's
/// `subscriptions/listen`, after a tool call made it add a tool.
#[test]
fn console_refreshes_a_2026_tool_list_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script(
        "console_tmux_lists.sh",
        &[OsStr::new(crate::common::fixture())],
    );
}

/// `tests/console_tmux_feedback.sh`: the CLI's spinner is drawn on a terminal (the fixture's
/// `slow` progress reports) and not with stdout piped, and the console's search line over a
/// 10,000-tool catalog (`scripts/large-mcp-server.py`) says "20 of 100 matches", updated on
/// each key.
#[test]
fn console_shows_progress_and_search_counts_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    run_script(
        "console_tmux_feedback.sh",
        &[OsStr::new(crate::common::fixture())],
    );
}
