//! The `mcpdeck` binary: parse the command line and hand it to the headless CLI.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let cli = match mcpdeck::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and --version print and succeed; every usage error exits with the documented
        // usage code (1), not clap's own 2, which means "refused" here.
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                mcpdeck::cli::Exit::Usage.into()
            } else {
                mcpdeck::cli::Exit::Ok.into()
            };
        }
    };
    mcpdeck::cli::run(cli).into()
}
