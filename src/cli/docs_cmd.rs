//! `mcpdeck completions SHELL`, `mcpdeck man [--out DIR]` and the version string: everything
//! a shell or `man` needs, generated from the one clap definition so it never drifts from
//! `--help`.
//!
//! Completion is answered by the binary itself: the script `completions` prints calls
//! `MCPDECK_COMPLETE=<shell> mcpdeck -- <words>` on each Tab, and [`answer_completion_request`]
//! (first thing in `main`) answers from the command definition — commands, options, fixed values
//! — plus the names of the configured servers, read from the current directory's configuration
//! (reading never connects or spawns). Tool names would need a connection, so they are not
//! completed.

use std::io::Write as _;
use std::path::Path;

use clap::CommandFactory as _;

use super::Cli;
use super::exit::Exit;
use super::output::print_error;

/// `--version`: the package version and the commit it was built from (`unknown` when the
/// build had neither git nor a recorded commit; see `build.rs`).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("MCPDECK_COMMIT"),
    ")"
);

/// The variable that turns a run of `mcpdeck` into an answer to a completion request (a name of
/// our own, so an unrelated `COMPLETE` in the environment changes nothing).
const COMPLETE_VAR: &str = "MCPDECK_COMPLETE";

/// When the shell asks (`MCPDECK_COMPLETE` is set), prints the completions and exits; otherwise
/// returns at once. Must run before anything is written to stdout.
pub fn answer_completion_request() {
    clap_complete::CompleteEnv::with_factory(completion_command)
        .var(COMPLETE_VAR)
        .complete();
}

/// The command definition with server-name completion on every argument that names a
/// configured server: each `server` argument of every command, except under `hosts connect` and
/// `hosts import`, where it is a name in another host's configuration.
fn completion_command() -> clap::Command {
    with_servers_below(Cli::command(), "")
}

fn with_servers_below(command: clap::Command, path: &str) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    let mut command = if matches!(path, " hosts connect" | " hosts import") {
        command
    } else {
        with_servers(command)
    };
    for name in names {
        let below = format!("{path} {name}");
        command = command.mut_subcommand(&name, |c| with_servers_below(c, &below));
    }
    command
}

/// `command` with server-name completion on its `server` argument. The arguments are changed
/// in place: re-adding one (`mut_arg`) would move a positional behind the others.
fn with_servers(command: clap::Command) -> clap::Command {
    command.mut_args(|a| {
        if a.get_id() == "server" {
            a.add(clap_complete::engine::ArgValueCompleter::new(server_names))
        } else {
            a
        }
    })
}

/// The configured servers (of the current directory's project) whose names start with what was
/// typed. Names that are not valid server names are never offered to the shell.
fn server_names(current: &std::ffi::OsStr) -> Vec<clap_complete::engine::CompletionCandidate> {
    let Some(prefix) = current.to_str() else {
        return Vec::new();
    };
    let Ok((config, _)) = super::context::load_config(None, Vec::new(), false) else {
        return Vec::new();
    };
    config
        .servers
        .iter()
        .map(|s| s.entry.name.as_str())
        .filter(|n| n.starts_with(prefix))
        .filter(|n| crate::mcp::config::schema::is_valid_server_name(n))
        .map(clap_complete::engine::CompletionCandidate::new)
        .collect()
}

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> Exit {
    let name = shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let Some(completer) = shells.completer(&name) else {
        print_error(&format!("no completion support for {name}"));
        return Exit::Usage;
    };
    let mut out = Vec::new();
    if let Err(e) =
        completer.write_registration(COMPLETE_VAR, "mcpdeck", "mcpdeck", "mcpdeck", &mut out)
    {
        print_error(&format!("cannot write the completion script: {e}"));
        return Exit::Usage;
    }
    write_stdout(&out)
}

/// Prints `mcpdeck.1` on stdout, or with `out` writes one page per command into that directory
/// (`mcpdeck.1`, `mcpdeck-call.1`, `mcpdeck-hosts-import.1`, …), creating it if missing.
pub fn man(out: Option<&Path>) -> Exit {
    let command = Cli::command();
    let Some(dir) = out else {
        let mut page = Vec::new();
        if let Err(e) = clap_mangen::Man::new(command).render(&mut page) {
            print_error(&format!("cannot render the man page: {e}"));
            return Exit::Usage;
        }
        return write_stdout(&page);
    };
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(command, dir))
        .map(|()| pages(dir));
    match written {
        Ok(count) => {
            eprintln!("wrote {count} pages to {}", dir.display());
            Exit::Ok
        }
        Err(e) => {
            print_error(&format!("cannot write man pages to {}: {e}", dir.display()));
            Exit::Usage
        }
    }
}

/// How many `mcpdeck*.1` pages `dir` holds.
fn pages(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("mcpdeck") && name.ends_with(".1")
            })
            .count()
    })
}

fn write_stdout(bytes: &[u8]) -> Exit {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Exit::Ok,
        // A closed pipe (`mcpdeck man | head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => {
            print_error(&format!("cannot write to stdout: {e}"));
            Exit::Usage
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own consistency checks over every command, with the completers added (adding one
    /// must not reorder positionals).
    #[test]
    fn the_command_definitions_are_consistent() {
        Cli::command().debug_assert();
        completion_command().debug_assert();
    }
}
