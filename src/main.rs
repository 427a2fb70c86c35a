//! The `mcpdeck` binary: parse the command line and hand it to the headless CLI.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let cli = mcpdeck::cli::Cli::parse();
    mcpdeck::cli::run(cli).into()
}
