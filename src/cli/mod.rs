//! The headless command line: the engine for scripts and CI, with `--json` output
//! and stable exit codes. Every string that came from a configuration file or a server goes
//! through the sanitiser before it is printed.

mod approval_text;
mod approve_tty;
pub mod args;
mod ask;
mod auth_cmd;
mod client_cmd;
mod client_tty;
mod config_cmd;
mod docs_cmd;
/// The exit codes live in a module both faces share; `cli::exit::Exit` stays a path to them.
pub mod exit {
    pub use crate::exit::Exit;
}
mod hosts_cmd;
mod hosts_io;
mod keep;
mod ops_cmd;
mod output;
mod policy_cmd;
mod proxy_cmd;
mod run_op;
mod serve_cmd;
mod status_cmd;
mod trust_cmd;
mod validate;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use docs_cmd::answer_completion_request;
pub use exit::Exit;

use crate::mcp::config::{ConfigSet, LoadOptions, load::config_home};
use crate::mcp::trust::TrustStore;

/// mcpdeck: operate Model Context Protocol servers from a terminal console, scripts and agents.
#[derive(Debug, Parser)]
#[command(name = "mcpdeck", version = docs_cmd::VERSION, about, long_about = None)]
pub struct Cli {
    /// The project directory (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An extra configuration file, highest precedence; repeatable, later wins.
    #[arg(long = "config", global = true, value_name = "FILE")]
    pub config: Vec<PathBuf>,
    /// Add the built-in `demo` server (it is also present when no server is configured at all).
    #[arg(long, global = true)]
    pub demo: bool,
    /// When a server asks for OAuth sign-in, sign in inline instead of exiting 3.
    #[arg(long, global = true)]
    pub login: bool,
    /// Roots, elicitation and sampling answers for servers that ask.
    #[command(flatten)]
    pub client: client_tty::ClientFlags,
    /// What to do; without one, a status overview is shown.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Every server with its provenance, state and the project's trust (never connects).
    Status {
        /// Connect to each server and report what it answered: protocol version, name and
        /// version, capabilities, round-trip time.
        #[arg(long)]
        live: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Check or show configuration files.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Trust this project's server definitions (or revoke trust).
    Trust {
        /// Trust without asking (for scripts).
        #[arg(long, conflicts_with = "revoke")]
        yes: bool,
        /// Remove this project's trust entry.
        #[arg(long)]
        revoke: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Other agent hosts' MCP configurations (Claude Code, Cursor, VS Code, Codex, Gemini,
    /// Windsurf) side by side with mcpdeck's; without a subcommand, the matrix.
    Hosts {
        /// What to do; without one, the side-by-side matrix.
        #[command(subcommand)]
        command: Option<hosts_cmd::HostsCommand>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run one `mcp` proxy request given as JSON, e.g. '{}'.
    Proxy {
        /// The request object.
        request: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List a server's tools (connects), or search them.
    Tools {
        /// The configured server.
        server: String,
        /// Only tools matching every term (at most 20).
        #[arg(long)]
        search: Option<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// One tool's full input and output schemas, annotations and `_meta`.
    Describe {
        /// The configured server.
        server: String,
        /// The tool.
        tool: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Call a tool once: arguments as one JSON object, or key=value / key:=JSON pairs.
    Call {
        /// The configured server.
        server: String,
        /// The tool.
        tool: String,
        /// `{"k": ...}`, or `key=value` (typed by the tool's schema), or `key:=JSON`.
        args: Vec<String>,
        /// Run the call as a task (for tools whose task support is optional; a tool that
        /// requires a task runs as one anyway).
        #[arg(long)]
        task: bool,
        /// Send the arguments as given, without checking them against the tool's schema.
        #[arg(long)]
        no_validate: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keep: KeepArgs,
    },
    /// List a server's resources (with opaque references) and resource templates.
    Resources {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Read a resource by its reference, its name or its URI, or a resource template with
    /// values (`--template NAME key=value ...`).
    Read {
        /// The configured server.
        server: String,
        /// An `mcp-resource-…` reference, a resource name, or a URI (`scheme://…`).
        #[arg(required_unless_present = "template")]
        reference: Option<String>,
        /// Read this resource template (its name or URI template) expanded with the
        /// `key=value` / `key:=JSON` values that follow.
        #[arg(long, value_name = "TEMPLATE")]
        template: Option<String>,
        /// The template's values.
        #[arg(requires = "template")]
        values: Vec<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keep: KeepArgs,
    },
    /// List a server's resource templates with their URI templates and variables.
    Templates {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Ask a server to complete a prompt argument or a template variable
    /// (`completion/complete`); later `KEY=VALUE` pairs are the arguments already filled.
    Complete {
        /// The configured server.
        server: String,
        /// `ARG=PARTIAL`: the argument to complete and what is typed so far.
        argument: String,
        /// Arguments already filled (`KEY=VALUE`), sent as context.
        context: Vec<String>,
        /// Complete an argument of this prompt.
        #[arg(long, value_name = "NAME", conflicts_with = "template")]
        prompt: Option<String>,
        /// Complete a variable of this resource template (its name or URI template).
        #[arg(long, value_name = "TEMPLATE")]
        template: Option<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Subscribe to a resource and print it each time the server says it changed, until
    /// `--count` updates or Ctrl-C; then unsubscribe.
    Watch {
        /// The configured server.
        server: String,
        /// The resource URI.
        uri: String,
        /// Stop after this many updates.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
        /// One JSON object per update on stdout, then the final envelope.
        #[arg(long)]
        json: bool,
    },
    /// A server's tasks (`tasks/list`), or one task: its state, cancel it, or its result.
    Tasks {
        /// The configured server.
        server: String,
        /// Show this task's state (`tasks/get`).
        #[arg(long, value_name = "ID", group = "task_action")]
        get: Option<String>,
        /// Cancel this task (`tasks/cancel`).
        #[arg(long, value_name = "ID", group = "task_action")]
        cancel: Option<String>,
        /// Wait for this task's result (`tasks/result`) and print it like a call's.
        #[arg(long, value_name = "ID", group = "task_action")]
        result: Option<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Ping a server (connecting) and show the round-trip time.
    Ping {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List a server's prompts.
    Prompts {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Get a prompt's messages: arguments as key=value pairs (strings).
    Prompt {
        /// The configured server.
        server: String,
        /// The prompt.
        name: String,
        /// `key=value` arguments.
        args: Vec<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keep: KeepArgs,
    },
    /// Run the built-in demo MCP server on stdin/stdout (what the packaged `demo` server runs).
    DemoServer,
    /// Run the read-only workspace tools server on stdin/stdout.
    WorkspaceServer {
        /// Bind a directory under an alias; repeatable (at most 16).
        #[arg(long = "workspace", num_args = 2, value_names = ["ALIAS", "PATH"], required = true)]
        workspace: Vec<std::ffi::OsString>,
        /// Diagnostics on stderr: none, refusals/cancellations/timeouts, or every event as JSON.
        #[arg(long, value_enum, default_value = "errors")]
        observability: crate::workspace::Observability,
        /// Index at most this many files per workspace (results say how many were left out).
        #[arg(long, default_value_t = 50_000, value_parser = clap::value_parser!(u32).range(1..=200_000))]
        max_files: u32,
    },
    /// Serve the one `mcp` tool over stdio for an agent host (every configured server behind it).
    Serve {
        /// Override the policy file's mode.
        #[arg(long, value_enum)]
        policy: Option<PolicyMode>,
    },
    /// Sign in to remote servers that ask for OAuth, see the sign-ins, sign out.
    #[command(subcommand)]
    Auth(AuthCommand),
    /// List live `mcpdeck serve` sessions and answer their pending approvals (on a terminal).
    Approvals {
        /// Keep running until Ctrl-C: find new sessions as they start and answer each request.
        #[arg(long)]
        watch: bool,
        /// One JSON object on stdout (list only).
        #[arg(long)]
        json: bool,
    },
    /// The user's policy file: its mode and rules; add an allow rule or remove a rule.
    Policy {
        /// What to do; without one, list the mode and every rule.
        #[command(subcommand)]
        command: Option<policy_cmd::PolicyCommand>,
        /// One JSON object on stdout.
        #[arg(long, global = true)]
        json: bool,
    },
    /// Print a shell completion script; load it at shell start, e.g. in ~/.bashrc:
    /// `source <(mcpdeck completions bash)`. Completes configured server names too.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page, or write one page per command into a directory.
    Man {
        /// Write `mcpdeck.1`, `mcpdeck-call.1`, … into DIR (e.g. `~/.local/share/man/man1`).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// `--output DIR` and `--full` of `call`, `read` and `prompt`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct KeepArgs {
    /// Keep the whole result in DIR (created 0700): `result.txt` and every image, audio or
    /// resource file (0600, never overwritten); the printed text names the files.
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the whole text result, not the 50 KiB / 2,000-line preview.
    #[arg(long)]
    pub full: bool,
}

/// `--policy` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PolicyMode {
    /// Run everything, record it.
    Audit,
    /// Ask for what no rule allows.
    Enforce,
}

/// `mcpdeck auth ...`.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Sign in to a server (authorization code with PKCE, in a browser).
    Login {
        /// The configured server.
        server: String,
        /// Paste the final redirect URL instead of waiting on the loopback listener (over SSH).
        #[arg(long)]
        paste: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Whether each server is signed in, until when, with which scopes, and the store in use.
    Status {
        /// Only this server.
        server: Option<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Revoke (when the server offers it) and forget a server's tokens.
    Logout {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// `mcpdeck config ...`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Every diagnostic of every configuration file; exit 1 when any is an error.
    Check {
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// The effective definitions with their provenance, as written.
    Show {
        /// Only this server.
        server: Option<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON Schema of `mcp.json` (for editors that validate as you type).
    Schema,
}

/// What every command starts from: the loaded configuration and trust store.
pub struct Context {
    /// Every configuration file and the effective servers.
    pub config: ConfigSet,
    /// The trust store.
    pub trust: TrustStore,
    /// `$XDG_CONFIG_HOME` (where the policy file lives).
    pub config_home: PathBuf,
    /// `--login`: sign in inline when a server asks for it.
    pub login: bool,
    /// `--root`, `--elicit`, `--sampling-reply`.
    pub client: client_tty::ClientFlags,
}

/// Loads every configuration file for `cwd` and `extra` files, with the packaged servers on
/// top (the demo one too when `demo` or when no file defines a server).
fn load_config(
    cwd: Option<&std::path::Path>,
    extra: Vec<PathBuf>,
    demo: bool,
) -> Result<(ConfigSet, LoadOptions), String> {
    let options = LoadOptions::from_env(cwd, extra)
        .map_err(|e| format!("cannot read the current directory: {e}"))?;
    let config = ConfigSet::load(&options).map_err(|e| e.to_string())?;
    let root = options
        .project_dir
        .canonicalize()
        .unwrap_or_else(|_| options.project_dir.clone());
    let registry =
        crate::workspace::packaged::registry_for_project(&root).map_err(|e| e.to_string())?;
    Ok((registry.layer_onto(config, demo), options))
}

impl Context {
    fn load(cli: &Cli) -> Result<Self, String> {
        let (config, options) = load_config(cli.cwd.as_deref(), cli.config.clone(), cli.demo)?;
        let home = options
            .config_home
            .or_else(config_home)
            .ok_or("no home directory: set HOME or XDG_CONFIG_HOME")?;
        let trust = TrustStore::load(TrustStore::default_path(&home));
        Ok(Self {
            config,
            trust,
            config_home: home,
            login: cli.login,
            client: cli.client.clone(),
        })
    }
}

/// What the console needs from the command line: the loaded configuration, where trust and
/// policy live, and how to read the configuration again after its editor saves a file.
pub struct ConsoleSetup {
    /// The layered configuration.
    pub config: ConfigSet,
    /// The trust store's file.
    pub trust_path: PathBuf,
    /// The policy file (`keys.toml` lives beside it).
    pub policy_path: PathBuf,
    /// Loads the same files again.
    pub reload: Box<dyn Fn() -> Result<ConfigSet, String> + Send + Sync>,
}

/// Loads what the console needs for `cli` (run without a command); on failure the error is
/// printed and the exit code returned.
pub fn console_setup(cli: &Cli) -> Result<ConsoleSetup, Exit> {
    let cx = Context::load(cli).map_err(|message| {
        output::print_error(&message);
        Exit::Usage
    })?;
    let (cwd, extra, demo) = (cli.cwd.clone(), cli.config.clone(), cli.demo);
    Ok(ConsoleSetup {
        trust_path: cx.trust.path().to_path_buf(),
        policy_path: crate::mcp::policy::Policy::default_path(&cx.config_home),
        config: cx.config,
        reload: Box::new(move || {
            load_config(cwd.as_deref(), extra.clone(), demo).map(|(config, _)| config)
        }),
    })
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Exit {
    // The demo server speaks MCP on stdout and needs no configuration: dispatch it before
    // anything is loaded or printed.
    if let Some(Command::DemoServer) = &cli.command {
        return demo_server();
    }
    // So does the workspace server; it must not even read configuration.
    if let Some(Command::WorkspaceServer {
        workspace,
        observability,
        max_files,
    }) = &cli.command
    {
        return workspace_server(workspace, *observability, *max_files);
    }
    // Completions and man pages come from the command definition alone.
    match &cli.command {
        Some(Command::Completions { shell }) => return docs_cmd::completions(*shell),
        Some(Command::Man { out }) => return docs_cmd::man(out.as_deref()),
        _ => {}
    }
    let mut cx = match Context::load(&cli) {
        Ok(cx) => cx,
        Err(message) => {
            output::print_error(&message);
            return Exit::Usage;
        }
    };
    match cli.command {
        // `main` starts the console itself (see `console_setup`); reaching here without a
        // command means a caller skipped that, so say how to use the command line.
        None => {
            output::print_error("no command given; run `mcpdeck --help`");
            Exit::Usage
        }
        Some(Command::Status { live: true, json }) => status_cmd::live(cx, json),
        Some(Command::Status { live: false, json }) => status_cmd::run(&cx, json),
        Some(Command::Config(ConfigCommand::Check { json })) => config_cmd::check(&cx, json),
        Some(Command::Config(ConfigCommand::Schema)) => {
            output::print_text(
                &serde_json::to_string_pretty(&crate::mcp::config::json_schema::mcp_json_schema())
                    .unwrap_or_default(),
            );
            Exit::Ok
        }
        Some(Command::Config(ConfigCommand::Show { server, json })) => {
            config_cmd::show(&cx, server.as_deref(), json)
        }
        Some(Command::Trust { yes, revoke, json }) => {
            if revoke {
                trust_cmd::revoke(&mut cx, json)
            } else {
                trust_cmd::grant(&mut cx, yes, json)
            }
        }
        Some(Command::Hosts { command, json }) => hosts_cmd::run(&cx, command, json),
        Some(Command::Proxy { request, json }) => proxy_cmd::run(cx, &request, json),
        Some(Command::Tools {
            server,
            search,
            json,
        }) => ops_cmd::tools(cx, server, search, json),
        Some(Command::Describe { server, tool, json }) => ops_cmd::describe(cx, server, tool, json),
        Some(Command::Call {
            server,
            tool,
            args,
            task,
            no_validate,
            json,
            keep,
        }) => ops_cmd::call(
            cx,
            server,
            tool,
            args,
            task,
            !no_validate,
            printing(json, keep),
        ),
        Some(Command::Resources { server, json }) => ops_cmd::resources(cx, server, json),
        Some(Command::Read {
            server,
            reference,
            template,
            values,
            json,
            keep,
        }) => match template {
            // With --template, the first positional is a value too.
            Some(template) => {
                let values: Vec<String> = reference.into_iter().chain(values).collect();
                client_cmd::read_template(cx, server, template, &values, printing(json, keep))
            }
            None => ops_cmd::read(
                cx,
                server,
                reference.unwrap_or_default(),
                printing(json, keep),
            ),
        },
        Some(Command::Templates { server, json }) => client_cmd::templates(cx, server, json),
        Some(Command::Complete {
            server,
            argument,
            context,
            prompt,
            template,
            json,
        }) => client_cmd::complete(
            cx,
            client_cmd::CompleteArgs {
                server,
                prompt,
                template,
                argument,
                context,
                json,
            },
        ),
        Some(Command::Watch {
            server,
            uri,
            count,
            json,
        }) => client_cmd::watch(cx, server, uri, count, json),
        Some(Command::Tasks {
            server,
            get,
            cancel,
            result,
            json,
        }) => {
            let action = get
                .map(|id| ("get", id))
                .or(cancel.map(|id| ("cancel", id)))
                .or(result.map(|id| ("result", id)));
            client_cmd::tasks(cx, server, action, run_op::Printing::json(json))
        }
        Some(Command::Ping { server, json }) => ops_cmd::ping(cx, server, json),
        Some(Command::Prompts { server, json }) => ops_cmd::prompts(cx, server, json),
        Some(Command::Prompt {
            server,
            name,
            args,
            json,
            keep,
        }) => ops_cmd::prompt(cx, server, name, &args, printing(json, keep)),
        Some(Command::DemoServer) => demo_server(),
        Some(Command::Policy { command, json }) => policy_cmd::run(
            &crate::mcp::policy::Policy::default_path(&cx.config_home),
            command,
            json,
        ),
        Some(Command::Completions { shell }) => docs_cmd::completions(shell),
        Some(Command::Man { out }) => docs_cmd::man(out.as_deref()),
        Some(Command::WorkspaceServer {
            workspace,
            observability,
            max_files,
        }) => workspace_server(&workspace, observability, max_files),
        Some(Command::Serve { policy }) => serve_cmd::serve(
            cx,
            policy.map(|p| match p {
                PolicyMode::Audit => crate::mcp::policy::Mode::Audit,
                PolicyMode::Enforce => crate::mcp::policy::Mode::Enforce,
            }),
        ),
        Some(Command::Approvals { watch, json }) => serve_cmd::approvals(
            json,
            watch,
            crate::mcp::policy::Policy::default_path(&cx.config_home),
        ),
        Some(Command::Auth(AuthCommand::Login {
            server,
            paste,
            json,
        })) => auth_cmd::login(&cx, &server, paste, json),
        Some(Command::Auth(AuthCommand::Status { server, json })) => {
            auth_cmd::status(&cx, server.as_deref(), json)
        }
        Some(Command::Auth(AuthCommand::Logout { server, json })) => {
            auth_cmd::logout(&cx, &server, json)
        }
    }
}

fn printing(json: bool, keep: KeepArgs) -> run_op::Printing {
    run_op::Printing {
        json,
        full: keep.full,
        output: keep.output,
        ..run_op::Printing::default()
    }
}

/// `mcpdeck workspace-server`: serves until the client closes stdin. Errors name workspaces by
/// position only (stderr must never carry an alias or a path).
fn workspace_server(
    values: &[std::ffi::OsString],
    observability: crate::workspace::Observability,
    max_files: u32,
) -> Exit {
    use crate::workspace::{Observability, RunError};
    let report = |message: &str| {
        if observability != Observability::Off {
            output::print_error(&format!("workspace-server: {message}"));
        }
    };
    let mut pairs = Vec::with_capacity(values.len() / 2);
    for (i, pair) in values.chunks(2).enumerate() {
        let [alias, path] = pair else {
            report("--workspace takes an ALIAS and a PATH");
            return Exit::Usage;
        };
        let Some(alias) = alias.to_str() else {
            report(&format!("workspace {}: the alias is not valid", i + 1));
            return Exit::Usage;
        };
        pairs.push((alias.to_owned(), PathBuf::from(path)));
    }
    let max_files = usize::try_from(max_files).unwrap_or(crate::workspace::MAX_MAX_FILES);
    match crate::workspace::run(&pairs, observability, max_files) {
        Ok(()) => Exit::Ok,
        Err(RunError::Bind(e)) => {
            report(&e.to_string());
            Exit::Usage
        }
        Err(e) => {
            report(&e.to_string());
            Exit::Connection
        }
    }
}

/// `mcpdeck demo-server`: serves until the client closes stdin.
fn demo_server() -> Exit {
    match crate::demo::run() {
        Ok(()) => Exit::Ok,
        Err(e) => {
            output::print_error(&format!("demo server: {e:#}"));
            Exit::Connection
        }
    }
}
