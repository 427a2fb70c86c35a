//! The `auto` setting's era: the probe's bound, and what earlier probes found.
//!
//! `auto` probes a server with `server/discover` and stays on the 2026-07-28 protocol when the
//! answer is a discover result or a recognised modern error; anything else falls back to
//! `initialize` (rmcp decides that). Over stdio a legacy server may never answer a method it
//! does not know, so mcpdeck falls back itself once the probe has waited [`PROBE_TIMEOUT`] and
//! the server has gone idle (rmcp would wait 10 s). The era is a property of the server, so the first connection's
//! outcome is kept for the life of the mcpdeck process — per command line, working directory
//! and environment (stdio) or per endpoint URL (HTTP) — and the next connection in `auto` opens
//! in that era at once: `initialize` with no probe for a legacy server, `server/discover`
//! without the fallback for a modern one. A connection that fails in the cached era forgets
//! it, so the next one probes again.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::Duration;

use rmcp::ClientLifecycleMode;
use rmcp::model::ProtocolVersion;

/// How long the `auto` probe waits at least for a stdio server's answer to `server/discover`
/// before it may fall back to `initialize`; it falls back once the server has then used no CPU
/// time for [`PROBE_IDLE`]. The probe is the first line the server reads, so the wait also
/// covers its start-up, and an interpreter still loading is busy: the Python SDK 2.3's stdio
/// server took 3.6–4.0 s to answer it on the 2-core machine under a load of 13 (well over any
/// fixed bound short of rmcp's), and is given that time because it is working. A silent legacy
/// server, idle from the start, costs [`PROBE_TIMEOUT`] + [`PROBE_IDLE`] = 3 s instead of rmcp's
/// fixed 10 s (which still caps a server that stays busy).
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a probed server must stay idle (no CPU time used by its process tree) for the
/// probe to give up, once [`PROBE_TIMEOUT`] has passed.
pub(crate) const PROBE_IDLE: Duration = Duration::from_secs(1);

/// The longest the `auto` probe waits for an HTTP server's answer to `server/discover` before
/// it falls back to `initialize` (at most half the connection's request timeout, so the fallback
/// keeps the other half; see [`http_probe_bound`]). An HTTP server is already running, so the
/// wait covers one request, not a start-up; and a legacy HTTP server nearly always refuses the
/// probe at once (HTTP 400/404/405 or a JSON-RPC error), so only a server that holds the POST
/// open without answering pays it. The bound is long because a modern server slow under load
/// must not be taken for a legacy one (which would refuse the fallback `initialize`), and
/// shorter than rmcp's fixed 10 s so that, even on a loaded machine, rmcp reads mcpdeck's
/// stand-in answer rather than timing out itself.
pub(crate) const HTTP_PROBE_TIMEOUT: Duration = Duration::from_secs(8);

/// The HTTP probe's bound for a connection whose requests time out after `request_timeout`.
pub(crate) fn http_probe_bound(request_timeout: Duration) -> Duration {
    HTTP_PROBE_TIMEOUT.min(request_timeout / 2)
}

/// The CPU time (user and system, in clock ticks) used so far by the process `pid` and its
/// descendants, from `/proc`; `None` when `pid` is gone.
pub(crate) fn tree_cpu(pid: u32) -> Option<u64> {
    let mut total = ticks(pid)?;
    let mut stack = children(pid);
    let mut seen = 0;
    while let Some(child) = stack.pop() {
        seen += 1;
        if seen > 512 {
            break;
        }
        total += ticks(child).unwrap_or(0);
        stack.extend(children(child));
    }
    Some(total)
}

/// `utime + stime` of one process (fields 14 and 15 of `/proc/PID/stat`, counted after the
/// parenthesised command name, which may hold spaces).
fn ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// The children of every thread of `pid` (`/proc/PID/task/*/children`).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// The era a server was found to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2026-07-28: per-request metadata, no handshake.
    Modern,
    /// `initialize` (2025-11-25 and before).
    Legacy,
}

static KNOWN: Mutex<Option<HashMap<u64, Era>>> = Mutex::new(None);

/// The cache key of a stdio server: its command line, working directory and environment
/// (hashed: resolved values may be secrets).
pub(crate) fn stdio_key(
    command: &str,
    args: &[String],
    cwd: Option<&std::path::Path>,
    env: &BTreeMap<String, String>,
) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ("stdio", command, args, cwd, env).hash(&mut h);
    h.finish()
}

/// The cache key of an HTTP server: its endpoint URL.
pub(crate) fn http_key(url: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ("http", url).hash(&mut h);
    h.finish()
}

/// The era found for `key` earlier in this process.
pub(crate) fn known(key: u64) -> Option<Era> {
    KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(&key).copied())
}

/// Keeps the era a connection in `auto` opened in.
pub(crate) fn remember(key: u64, era: Era) {
    KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(key, era);
}

/// Forgets `key`'s era (a connection in it failed).
pub(crate) fn forget(key: u64) {
    if let Some(m) = KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_mut()
    {
        m.remove(&key);
    }
}

/// The lifecycle that opens a connection in a known era.
pub(crate) fn lifecycle_in(era: Era) -> (ProtocolVersion, ClientLifecycleMode) {
    match era {
        Era::Legacy => (
            ProtocolVersion::V_2025_11_25,
            ClientLifecycleMode::Initialize,
        ),
        Era::Modern => (
            ProtocolVersion::V_2025_11_25,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![
                    ProtocolVersion::V_2026_07_28,
                    ProtocolVersion::V_2025_11_25,
                ],
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_process_tree_uses_cpu_time_and_a_gone_one_has_none() {
        let me = std::process::id();
        let before = tree_cpu(me).expect("this process");
        // Spin until a clock tick of CPU time shows (bounded: a count that never moves fails).
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while tree_cpu(me).expect("this process") == before {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no CPU time counted"
            );
        }
        assert_eq!(tree_cpu(u32::MAX), None);
    }

    #[test]
    fn an_era_is_kept_per_server_until_forgotten() {
        let env = BTreeMap::from([("A".to_owned(), "1".to_owned())]);
        let one = stdio_key("srv", &["--x".into()], None, &env);
        let other_env = BTreeMap::from([("A".to_owned(), "2".to_owned())]);
        assert_ne!(one, stdio_key("srv", &["--x".into()], None, &other_env));
        assert_ne!(
            http_key("http://127.0.0.1:1/a"),
            http_key("http://127.0.0.1:1/b")
        );
        assert_eq!(known(one), None);
        remember(one, Era::Legacy);
        assert_eq!(known(one), Some(Era::Legacy));
        assert!(matches!(
            lifecycle_in(Era::Legacy).1,
            ClientLifecycleMode::Initialize
        ));
        forget(one);
        assert_eq!(known(one), None);
    }
}
