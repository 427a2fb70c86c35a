//! The `mcpdeck` binary: parse the command line, then start the console (no command) or hand
//! it to the headless CLI. Choosing here keeps the two faces independent of each other.

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    // A sandboxed stdio server is started as `mcpdeck __sandbox-exec …`: confine, then exec.
    if let Some(code) = mcpdeck::mcp::sandbox::launcher_main() {
        return code.into();
    }
    // A shell asking for completions (`MCPDECK_COMPLETE` set) is answered here, then exits.
    mcpdeck::cli::answer_completion_request();
    let cli = match mcpdeck::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and --version print and succeed; every usage error exits with the documented
        // usage code (1), not clap's own 2, which means "refused" here.
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                mcpdeck::exit::Exit::Usage.into()
            } else {
                mcpdeck::exit::Exit::Ok.into()
            };
        }
    };
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
