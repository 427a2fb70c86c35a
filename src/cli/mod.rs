//! The headless command line: the engine for scripts and CI, with `--json` output
//! and stable exit codes. Every string that came from a configuration file or a server goes
//! through the sanitiser before it is printed.

mod approve_tty;
pub mod args;
mod ask;
mod auth_cmd;
mod bench_cmd;
mod builtin_cmd;
mod client_cmd;
mod client_tty;
mod commands;
mod config_cmd;
mod context;
mod docs_cmd;
/// The exit codes live in a module both faces share; `cli::exit::Exit` stays a path to them.
pub mod exit {
    pub use crate::exit::Exit;
}
mod hosts_cmd;
mod hosts_io;
mod keep;
mod lint_cmd;
mod ops_cmd;
mod output;
mod pins_cmd;
mod policy_cmd;
mod progress;
mod proxy_cmd;
mod run_op;
mod sandbox_cmd;
mod serve_cmd;
mod status_cmd;
mod trust_cmd;

pub use commands::{
    AuthCommand, BenchArgs, CallArgs, Cli, Command, CompleteArgs, ConfigCommand, KeepArgs,
    PolicyMode, PromptArgs, ReadArgs, SandboxCommand, TasksArgs, WorkspaceServerArgs,
};
pub use context::{ConsoleSetup, Context, console_setup};
pub use docs_cmd::answer_completion_request;
pub use exit::Exit;

use crate::mcp::policy::Policy;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Exit {
    if let Some(exit) = cli.command.as_ref().and_then(run_standalone) {
        return exit;
    }
    let cx = match Context::load(&cli) {
        Ok(cx) => cx,
        Err(message) => {
            output::print_error(&message);
            return Exit::Usage;
        }
    };
    let Some(command) = cli.command else {
        // `main` starts the console itself (see `console_setup`); reaching here without a
        // command means a caller skipped that, so say how to use the command line.
        output::print_error("no command given; run `mcpdeck --help`");
        return Exit::Usage;
    };
    dispatch(cx, command)
}

/// Runs a command that needs no configuration, before anything is loaded or printed: the demo
/// and workspace servers speak MCP on stdout (the workspace server must not even read
/// configuration), and completions and man pages come from the command definition alone.
fn run_standalone(command: &Command) -> Option<Exit> {
    match command {
        Command::DemoServer => Some(builtin_cmd::demo_server()),
        Command::WorkspaceServer(args) => Some(builtin_cmd::workspace_server(args)),
        Command::Completions { shell } => Some(docs_cmd::completions(*shell)),
        Command::Man { out } => Some(docs_cmd::man(out.as_deref())),
        _ => None,
    }
}

/// Runs one command with the loaded configuration.
fn dispatch(mut cx: Context, command: Command) -> Exit {
    match command {
        Command::Status { live: true, json } => status_cmd::live(cx, json),
        Command::Status { live: false, json } => status_cmd::run(cx, json),
        Command::Config(command) => config_cmd::run(&cx, command),
        Command::Sandbox(SandboxCommand::Suggest { server, json }) => {
            sandbox_cmd::suggest(&cx, &server, json)
        }
        Command::Trust {
            revoke: true, json, ..
        } => trust_cmd::revoke(&mut cx, json),
        Command::Trust { yes, json, .. } => trust_cmd::grant(&mut cx, yes, json),
        Command::Hosts { command, json } => hosts_cmd::run(&cx, command, json),
        Command::Proxy { request, json } => proxy_cmd::run(cx, &request, json),
        Command::Tools {
            server,
            cost: true,
            json,
            ..
        } => ops_cmd::tool_costs(cx, server, json),
        Command::Tools {
            server,
            search,
            json,
            ..
        } => ops_cmd::tools(cx, server, search, json),
        Command::Describe { server, tool, json } => ops_cmd::describe(cx, server, tool, json),
        Command::Call(args) => ops_cmd::call(cx, args),
        Command::Resources { server, json } => ops_cmd::resources(cx, server, json),
        Command::Read(args) => ops_cmd::read_command(cx, args),
        Command::Templates { server, json } => client_cmd::templates(cx, server, json),
        Command::Complete(args) => client_cmd::complete(cx, args),
        Command::Watch {
            server,
            uri,
            count,
            json,
        } => client_cmd::watch(cx, server, uri, count, json),
        Command::Tasks(args) => client_cmd::tasks(cx, args),
        Command::Ping { server, json } => ops_cmd::ping(cx, server, json),
        Command::Prompts { server, json } => ops_cmd::prompts(cx, server, json),
        Command::Scan { server, json } => client_cmd::scan(cx, server, json),
        Command::Pins(args) => pins_cmd::run(cx, args),
        Command::Prompt(args) => ops_cmd::prompt(cx, args),
        Command::Skills { server, json } => client_cmd::skills(cx, server, json),
        Command::Skill {
            server,
            name,
            files,
            json,
        } => client_cmd::skill(cx, server, name, files, json),
        Command::Bench(args) => bench_cmd::bench(cx, args),
        Command::Lint {
            server,
            call,
            json,
            sarif,
        } => lint_cmd::lint(cx, server, call, if sarif { None } else { Some(json) }),
        Command::Policy { command, json } => {
            policy_cmd::run(&Policy::default_path(&cx.config_home), command, json)
        }
        Command::Serve { policy } => serve_cmd::serve(cx, policy.map(PolicyMode::mode)),
        Command::Approvals { watch, json } => {
            serve_cmd::approvals(json, watch, Policy::default_path(&cx.config_home))
        }
        Command::Auth(command) => auth_cmd::run(&cx, command),
        Command::DemoServer => builtin_cmd::demo_server(),
        Command::WorkspaceServer(args) => builtin_cmd::workspace_server(&args),
        Command::Completions { shell } => docs_cmd::completions(shell),
        Command::Man { out } => docs_cmd::man(out.as_deref()),
    }
}
