//! `mcpdeck completions SHELL`, `mcpdeck man [--out DIR]` and the version string: everything
//! a shell or `man` needs, generated from the one clap definition so it never drifts from
//! `--help`. None of these read configuration.

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

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> Exit {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "mcpdeck", &mut out);
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
