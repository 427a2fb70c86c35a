//! The command line's definition: every subcommand, its arguments and their help text (clap).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::{client_tty, docs_cmd, hosts_cmd, policy_cmd};

/// The heading of the options every command takes, so a command's `--help` lists its own
/// options first.
pub(crate) const GLOBAL: &str = "Global options";

/// What `mcpdeck --help` says after the lists: the command-less console and the exit codes.
const AFTER_HELP: &str = "\
Without a command, mcpdeck opens the terminal console on this project's servers (with no \
configuration at all, on the built-in demo server).

Exit codes: 0 ok; 1 usage or configuration error; 2 refused (trust, disabled, policy, \
approval); 3 auth required; 4 connection failed; 5 the server reported an error; 6 timeout or \
cancelled; 7 a bound was hit.";

/// mcpdeck: operate Model Context Protocol servers from a terminal console, scripts and agents.
#[derive(Debug, Parser)]
#[command(
    name = "mcpdeck",
    version = docs_cmd::VERSION,
    about,
    long_about = None,
    after_help = AFTER_HELP
)]
pub struct Cli {
    /// The project directory (default: the current directory).
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub cwd: Option<PathBuf>,
    /// An extra configuration file, highest precedence; repeatable, later wins.
    #[arg(long = "config", global = true, value_name = "FILE", help_heading = GLOBAL)]
    pub config: Vec<PathBuf>,
    /// Add the built-in `demo` server (it is also present when no server is configured at all).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub demo: bool,
    /// When a server asks for OAuth sign-in, sign in inline instead of exiting 3.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub login: bool,
    /// Roots, elicitation and sampling answers for servers that ask.
    #[command(flatten)]
    pub client: client_tty::ClientFlags,
    /// What to do; without one, the console opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Every server with its provenance, state and the project's trust (never connects without
    /// `--live`).
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
        /// The tokens each tool definition adds to an agent's context (`o200k_base`), their sum,
        /// and what `mcpdeck serve`'s one `mcp` tool costs instead.
        #[arg(long, conflicts_with = "search")]
        cost: bool,
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
    Call(CallArgs),
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
    Read(ReadArgs),
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
    Complete(CompleteArgs),
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
    Tasks(TasksArgs),
    /// Ping a server (connecting) and show the round-trip time.
    Ping {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Scan a server's definitions for tool poisoning: invisible characters and text addressed
    /// to the model (exit 1 when anything is found).
    Scan {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// A server's definitions against their pins across restarts: what was added, removed,
    /// changed or renamed (`--accept` makes the listing the pins); `export` / `check` a pin
    /// file to commit.
    Pins(super::pins_cmd::PinsArgs),
    /// List a server's prompts.
    Prompts {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Get a prompt's messages: arguments as key=value pairs (strings).
    Prompt(PromptArgs),
    /// List a server's skills (`skills/list`, the `io.modelcontextprotocol/skills` extension):
    /// names, URIs, files and sizes; no skill file is read.
    Skills {
        /// The configured server.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Read one skill: its `SKILL.md` and the files named with `--file`, each verified against
    /// the listing (size, SHA-256 digest, front matter) and refused on any mismatch.
    Skill {
        /// The configured server.
        server: String,
        /// The skill's name, or the URI of its `SKILL.md` (asked with `skills/get`).
        name: String,
        /// Also read this file of the skill (its path inside the skill, e.g.
        /// `references/FORMS.md`, or its URI); repeatable.
        #[arg(long = "file", value_name = "PATH")]
        files: Vec<String>,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Sandboxed stdio servers: `suggest SERVER` prints a `sandbox` profile derived from the
    /// definition, to review and paste into it.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
    /// Load-test one tool: N calls with C in flight on each of K connections; a latency
    /// histogram, throughput and errors by class. Only tools marked read-only, unless --yes.
    Bench(BenchArgs),
    /// Check that a server is well made (for its authors): schemas, names, annotations,
    /// capabilities, pagination, error codes, header annotations; exit 1 on errors.
    Lint {
        /// The configured server.
        server: String,
        /// Also call every tool marked read-only with sample arguments that satisfy its input
        /// schema, and check its structuredContent against its outputSchema.
        #[arg(long)]
        call: bool,
        /// One JSON object on stdout.
        #[arg(long, conflicts_with = "sarif")]
        json: bool,
        /// SARIF 2.1.0 on stdout, for code scanning in CI.
        #[arg(long)]
        sarif: bool,
    },
    /// Run the built-in demo MCP server on stdin/stdout (what the packaged `demo` server runs).
    DemoServer,
    /// Run the read-only workspace tools server on stdin/stdout.
    WorkspaceServer(WorkspaceServerArgs),
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
        /// Write `mcpdeck.1`, `mcpdeck-call.1`, … into DIR (e.g. `~/.cargo/share/man/man1`, which `man` searches when `~/.cargo/bin` is on PATH).
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

impl PolicyMode {
    /// The policy mode this value selects.
    pub fn mode(self) -> crate::mcp::policy::Mode {
        match self {
            Self::Audit => crate::mcp::policy::Mode::Audit,
            Self::Enforce => crate::mcp::policy::Mode::Enforce,
        }
    }
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

/// `mcpdeck sandbox ...`.
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Print a `sandbox` block for a stdio server: its command's package, the npm or uv cache
    /// for `npx`/`uvx`, the paths in its arguments, its `cwd` and roots (review it: it cannot
    /// know what the server opens by names it computes).
    Suggest {
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

/// The arguments of `mcpdeck call`.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// The configured server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// `{"k": ...}`, or `key=value` (typed by the tool's schema), or `key:=JSON`.
    pub args: Vec<String>,
    /// Run the call as a task (for tools whose task support is optional; a tool that
    /// requires a task runs as one anyway).
    #[arg(long)]
    pub task: bool,
    /// Send the arguments without checking them against the tool's schema (types included: a
    /// value its types do not fit is sent as it reads, and the server decides).
    #[arg(long)]
    pub no_validate: bool,
    /// A `_meta` entry of your own on the request: `key=value` (a string) or `key:=JSON`;
    /// repeatable. Keys the protocol keeps (`progressToken`, `io.modelcontextprotocol/...`)
    /// are refused.
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub keep: KeepArgs,
}

/// The arguments of `mcpdeck bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// The configured server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// `{"k": ...}`, or `key=value` (typed by the tool's schema), or `key:=JSON`.
    pub args: Vec<String>,
    /// Calls in all (at most 100,000).
    #[arg(short = 'n', long = "calls", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub calls: u32,
    /// Calls in flight on each connection (at most 256).
    #[arg(short = 'c', long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Independent connections (for stdio, that many server processes; at most 16).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub connections: u32,
    /// Start no call after this many seconds (at most 600).
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=600))]
    pub max_seconds: u32,
    /// Run a tool that is not marked read-only too (it is called N times).
    #[arg(long)]
    pub yes: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `mcpdeck read`.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// The configured server.
    pub server: String,
    /// An `mcp-resource-…` reference, a resource name, or a URI (`scheme://…`).
    #[arg(required_unless_present = "template")]
    pub reference: Option<String>,
    /// Read this resource template (its name or URI template) expanded with the
    /// `key=value` / `key:=JSON` values that follow.
    #[arg(long, value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// The template's values.
    #[arg(requires = "template")]
    pub values: Vec<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub keep: KeepArgs,
}

/// The arguments of `mcpdeck complete`.
#[derive(Debug, clap::Args)]
pub struct CompleteArgs {
    /// The configured server.
    pub server: String,
    /// `ARG=PARTIAL`: the argument to complete and what is typed so far.
    pub argument: String,
    /// Arguments already filled (`KEY=VALUE`), sent as context.
    pub context: Vec<String>,
    /// Complete an argument of this prompt.
    #[arg(long, value_name = "NAME", conflicts_with = "template")]
    pub prompt: Option<String>,
    /// Complete a variable of this resource template (its name or URI template).
    #[arg(long, value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `mcpdeck tasks`.
#[derive(Debug, clap::Args)]
pub struct TasksArgs {
    /// The configured server.
    pub server: String,
    /// Show this task's state (`tasks/get`).
    #[arg(long, value_name = "ID", group = "task_action")]
    pub get: Option<String>,
    /// Cancel this task (`tasks/cancel`).
    #[arg(long, value_name = "ID", group = "task_action")]
    pub cancel: Option<String>,
    /// Wait for this task's result (`tasks/result`) and print it like a call's.
    #[arg(long, value_name = "ID", group = "task_action")]
    pub result: Option<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `mcpdeck prompt`.
#[derive(Debug, clap::Args)]
pub struct PromptArgs {
    /// The configured server.
    pub server: String,
    /// The prompt.
    pub name: String,
    /// `key=value` arguments.
    pub args: Vec<String>,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub keep: KeepArgs,
}

/// The arguments of `mcpdeck workspace-server`.
#[derive(Debug, clap::Args)]
pub struct WorkspaceServerArgs {
    /// Bind a directory under an alias; repeatable (at most 16).
    #[arg(long = "workspace", num_args = 2, value_names = ["ALIAS", "PATH"], required = true)]
    pub workspace: Vec<std::ffi::OsString>,
    /// Diagnostics on stderr: none, refusals/cancellations/timeouts, or every event as JSON.
    #[arg(long, value_enum, default_value = "errors")]
    pub observability: crate::workspace::Observability,
    /// Index at most this many files per workspace (results say how many were left out).
    #[arg(long, default_value_t = 50_000, value_parser = clap::value_parser!(u32).range(1..=200_000))]
    pub max_files: u32,
}
