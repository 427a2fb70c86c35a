//! The `mcpdeck` binary: parse the command line, then start the console (no command) or hand
//! it to the headless CLI. Choosing here keeps the two faces independent of each other.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let cli = mcpdeck::cli::Cli::parse();
    if cli.command.is_some() {
        return mcpdeck::cli::run(cli).into();
    }
    let exit = match mcpdeck::cli::console_setup(&cli) {
        Ok(setup) => mcpdeck::console::run(
            setup.config,
            setup.trust_path,
            &setup.policy_path,
            setup.reload,
        ),
        Err(exit) => exit,
    };
    exit.into()
}
