//! The hidden launcher mode of the `mcpdeck` binary: `mcpdeck __sandbox-exec PROFILE -- COMMAND
//! ARGS…` confines its own process to PROFILE (JSON) and then executes COMMAND in its place, so
//! the server is the launcher's pid, inherits its stdio, environment and working directory, and
//! starts confined. No `pre_exec` hook (which would need `unsafe`) is involved.

use std::ffi::OsString;
use std::path::PathBuf;

use super::profile::Profile;

/// The first argument that selects the launcher (never shown in `--help`).
pub const LAUNCHER_ARG: &str = "__sandbox-exec";

/// Exit code of a launcher that refused to start the server (as `env` and shells use for a
/// program that could not be executed).
pub const REFUSED_EXIT: u8 = 126;

/// The program and arguments that start `command` confined to `profile`: the running mcpdeck
/// binary in launcher mode — or, when the server is itself an `mcpdeck` binary (the packaged
/// workspace server), that binary, which has the same mode.
pub(crate) fn wrap(
    profile: &Profile,
    command: &str,
    args: &[String],
) -> Result<(PathBuf, Vec<OsString>), String> {
    let me = if std::path::Path::new(command)
        .file_stem()
        .is_some_and(|n| n == env!("CARGO_PKG_NAME"))
    {
        PathBuf::from(command)
    } else {
        std::env::current_exe().map_err(|e| {
            format!("could not find mcpdeck's own executable to launch the sandbox: {e}")
        })?
    };
    let json = serde_json::to_string(profile).map_err(|e| e.to_string())?;
    let mut out: Vec<OsString> = vec![
        LAUNCHER_ARG.into(),
        json.into(),
        "--".into(),
        command.into(),
    ];
    out.extend(args.iter().map(OsString::from));
    Ok((me, out))
}

/// When this process was started as the launcher, confines it and executes the server; returns
/// only when that failed (with the exit code to end with). `None`: not the launcher.
pub fn launcher_main() -> Option<u8> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(LAUNCHER_ARG.as_ref()) {
        return None;
    }
    let fail = |said: String| {
        eprintln!("mcpdeck sandbox: {said}");
        Some(REFUSED_EXIT)
    };
    let (Some(json), Some(dashes), Some(command)) = (args.next(), args.next(), args.next()) else {
        return fail("usage: mcpdeck __sandbox-exec PROFILE -- COMMAND [ARGS…]".into());
    };
    if dashes != "--" {
        return fail("usage: mcpdeck __sandbox-exec PROFILE -- COMMAND [ARGS…]".into());
    }
    let profile: Profile = match serde_json::from_str(&json.to_string_lossy()) {
        Ok(p) => p,
        Err(e) => return fail(format!("the sandbox profile is not valid: {e}")),
    };
    if let Err(said) = super::confine_self(&profile) {
        return fail(format!("refused to start the server: {said}"));
    }
    Some(exec(&command, args.collect()))
}

#[cfg(unix)]
fn exec(command: &OsString, args: Vec<OsString>) -> u8 {
    use std::os::unix::process::CommandExt as _;
    let err = std::process::Command::new(command).args(args).exec();
    eprintln!(
        "mcpdeck sandbox: could not start `{}` inside the sandbox: {err}",
        command.to_string_lossy()
    );
    if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        REFUSED_EXIT
    }
}

#[cfg(not(unix))]
fn exec(_: &OsString, _: Vec<OsString>) -> u8 {
    eprintln!("mcpdeck sandbox: sandboxed servers run on Linux only");
    REFUSED_EXIT
}
