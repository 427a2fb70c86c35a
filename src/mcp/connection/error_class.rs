//! The one failure class of every operation: how a connection or request failed
//! (`missing_env` … `sandbox_refused`) and how the engine refused or failed an operation
//! (`invalid_request` … `unreachable`), with each class's typed details, its stable wire name,
//! its exit code and a sentence for a person.
//!
//! Every face matches on it exhaustively (the CLI's exit codes and sign-in retries, serve's
//! envelope, the console's log and modals), so a new class fails to compile until each face
//! says what it does with it. The wire names never change: `--json`'s and serve's `class`.

use crate::exit::Exit;
use crate::mcp::api::LiveServer;

/// What kind of failure happened. Serialised as `{"class": "<snake_case>", ...details}`, the
/// details' keys in camelCase like every JSON key mcpdeck writes (`stderrTail`, `afterMs`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(
    tag = "class",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ErrorClass {
    /// A referenced environment variable was unset or empty.
    MissingEnv {
        /// The variable's name (never its value).
        variable: String,
    },
    /// The stdio server's process could not be started.
    SpawnFailed {
        /// The OS error kind, e.g. `NotFound`, `PermissionDenied`.
        os_error: String,
    },
    /// The stdio server's process exited.
    Exited {
        /// The exit status as text (`exit status: 3`, `signal: 9 (SIGKILL)`).
        status: String,
        /// The last lines of its stderr, sanitised.
        stderr_tail: Vec<String>,
    },
    /// The handshake or request did not finish within its deadline.
    Timeout {
        /// The deadline that passed, in milliseconds.
        after_ms: u64,
    },
    /// The HTTP endpoint answered with an unexpected status.
    HttpStatus {
        /// The HTTP status code.
        code: u16,
    },
    /// The HTTP endpoint refused the credentials (401/403).
    AuthRequired {
        /// 401 or 403.
        code: u16,
        /// The scopes the challenge named (sanitised): a 403 `insufficient_scope`'s demand, for
        /// step-up, or a 401's (inline sign-in asks for them).
        #[serde(skip_serializing_if = "Option::is_none")]
        scope: Option<String>,
    },
    /// The endpoint answered with something that is not MCP (an HTML page, non-JSON).
    NotMcp {
        /// The content type it answered with, when it sent one.
        content_type: Option<String>,
    },
    /// The peer broke the protocol (handshake, framing, unexpected message, unknown version).
    Protocol,
    /// A TLS failure (certificate, handshake).
    Tls,
    /// The host name could not be resolved.
    Dns,
    /// Nothing accepted the connection.
    Refused,
    /// The operation was cancelled by the caller.
    Cancelled,
    /// A bound was hit.
    Limit {
        /// Which bound (`stdout frame 16 MiB`, `response body 16 MiB`, ...); empty when the
        /// message names it (a catalog's paging, a result's shaping).
        #[serde(skip_serializing_if = "String::is_empty")]
        bound: String,
    },
    /// A 2026 server still asked for input after the most rounds one operation may take.
    InputRounds {
        /// The cap that was reached.
        rounds: u32,
    },
    /// The server answered the request with a JSON-RPC error (the connection itself is fine).
    ServerError {
        /// The JSON-RPC error code.
        code: i32,
    },
    /// A sandboxed server was not started: the kernel cannot enforce one of its rules (and the
    /// definition does not opt into best effort), or the sandbox could not be set up.
    SandboxRefused {
        /// The rule the kernel cannot enforce (`net: TCP ports`), or `setup`.
        rule: String,
        /// The kernel's Landlock ABI version (0: none).
        kernel_abi: u8,
    },

    // The engine's classes: the request, the configuration, policy, and the operation itself.
    /// The request is malformed or its arguments do not fit (the tool's schema, a prompt's
    /// required arguments, a URI template's values).
    InvalidRequest,
    /// No configured server has that name.
    UnknownServer,
    /// The server has no tool of that name.
    UnknownTool,
    /// The server has no prompt of that name.
    UnknownPrompt,
    /// A resource reference this process never handed out (or from before a reconnect).
    StaleReference,
    /// The server did not declare the capability, or this face does not offer it.
    NotSupported,
    /// The server's definition has configuration errors, or there is none.
    InvalidConfig,
    /// The server is defined by a project that is not trusted (or changed since).
    Untrusted,
    /// The server is disabled in its configuration.
    Disabled,
    /// Policy or the operator refused the operation (a deny rule, a no, no answer in time).
    Denied,
    /// Enforce mode needs an operator's approval and nobody is attached to give it.
    ApprovalRequired,
    /// `bench` refuses a tool that is not marked read-only (without `--yes`).
    #[serde(rename = "refused")]
    NotReadOnly,
    /// Roots were offered that a sandboxed server's rules cannot read.
    #[serde(rename = "sandbox_refused")]
    RootsOutsideSandbox,
    /// The tool ran and reported an error (`isError`); its shaped result is the failure's
    /// `call`.
    ToolError,
    /// A notification to the server could not be delivered (the connection is gone).
    Transport,
    /// Writing a spill file failed (or the engine that owns spills could not start).
    Spill,
    /// The token counter could not run.
    Tokenizer,
    /// The pin store or a pin file could not be read or written.
    Pins,
    /// There is no state directory (neither `HOME` nor `XDG_STATE_HOME`).
    NoState,
    /// `status --live`: some servers did not answer; every server's row.
    Unreachable {
        /// Every server, probed in turn.
        servers: Vec<LiveServer>,
    },
    // The CLI's own commands (trust, policy, auth, hosts, sandbox), which run outside the
    // engine but fail in the same envelope.
    /// The policy file could not be read or written.
    PolicyFile,
    /// There is no place for a backup (neither `HOME` nor `XDG_STATE_HOME`).
    NoBackupDir,
    /// `policy remove` named a rule the file does not hold.
    NoSuchRule,
    /// Signing in, or reading or removing a sign-in, failed.
    AuthFailed,
    /// The trust store could not be read or written.
    TrustStore,
    /// The operator said no, or there is no terminal to ask on (trust, hosts import).
    #[serde(rename = "refused")]
    NotConfirmed,
    /// A definition has errors under its own file's rules (hosts, sandbox).
    #[serde(rename = "invalid")]
    InvalidDefinition,
    /// A definition cannot be written in the other host's format.
    Inexpressible,
    /// Only a stdio server runs in a sandbox.
    NotStdio,
    /// The file to import into cannot be read or is not a configuration.
    TargetInvalid,
    /// The host defines no valid server to import.
    NothingToImport,
    /// An imported server would replace a different one of the same name.
    Conflict,
    /// The import would write a configuration with errors, or its servers have problems.
    #[serde(rename = "refused")]
    NotImportable,
    /// Writing a configuration file (or its backup) failed.
    WriteFailed,
    /// A test-connect needs input values that were not given.
    InputNeeded,
    /// A definition's references could not be resolved for a test-connect.
    Unresolved,
    /// mcpdeck itself failed (the async runtime could not start).
    Internal,
    /// Another host's definition could not be test-connected.
    #[serde(rename = "connection")]
    HostConnect,
    /// `trust` in a project whose files define no server.
    NothingToTrust,
}

impl ErrorClass {
    /// The stable `snake_case` name of the class (the wire's `class`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::MissingEnv { .. } => "missing_env",
            Self::SpawnFailed { .. } => "spawn_failed",
            Self::Exited { .. } => "exited",
            Self::Timeout { .. } => "timeout",
            Self::HttpStatus { .. } => "http_status",
            Self::AuthRequired { .. } => "auth_required",
            Self::NotMcp { .. } => "not_mcp",
            Self::Protocol => "protocol",
            Self::Tls => "tls",
            Self::Dns => "dns",
            Self::Refused | Self::NotReadOnly | Self::NotConfirmed | Self::NotImportable => {
                "refused"
            }
            Self::Cancelled => "cancelled",
            Self::Limit { .. } => "limit",
            Self::InputRounds { .. } => "input_rounds",
            Self::ServerError { .. } => "server_error",
            Self::SandboxRefused { .. } | Self::RootsOutsideSandbox => "sandbox_refused",
            Self::InvalidRequest => "invalid_request",
            Self::UnknownServer => "unknown_server",
            Self::UnknownTool => "unknown_tool",
            Self::UnknownPrompt => "unknown_prompt",
            Self::StaleReference => "stale_reference",
            Self::NotSupported => "not_supported",
            Self::InvalidConfig => "invalid_config",
            Self::Untrusted => "untrusted",
            Self::Disabled => "disabled",
            Self::Denied => "denied",
            Self::ApprovalRequired => "approval_required",
            Self::ToolError => "tool_error",
            Self::Transport => "transport",
            Self::Spill => "spill",
            Self::Tokenizer => "tokenizer",
            Self::Pins => "pins",
            Self::NoState => "no_state",
            Self::Unreachable { .. } => "unreachable",
            Self::PolicyFile => "policy_file",
            Self::NoBackupDir => "no_backup_dir",
            Self::NoSuchRule => "no_such_rule",
            Self::AuthFailed => "auth_failed",
            Self::TrustStore => "trust_store",
            Self::InvalidDefinition => "invalid",
            Self::Inexpressible => "inexpressible",
            Self::NotStdio => "not_stdio",
            Self::TargetInvalid => "target_invalid",
            Self::NothingToImport => "nothing_to_import",
            Self::Conflict => "conflict",
            Self::WriteFailed => "write_failed",
            Self::InputNeeded => "input_needed",
            Self::Unresolved => "unresolved",
            Self::Internal => "internal",
            Self::HostConnect => "connection",
            Self::NothingToTrust => "nothing_to_trust",
        }
    }

    /// What a command that ends with this class exits with: configuration and requests 1,
    /// trust and policy 2, sign-in 3, the connection 4, the server 5, time 6, a bound 7.
    pub fn exit(&self) -> Exit {
        match self {
            Self::MissingEnv { .. }
            | Self::InvalidRequest
            | Self::UnknownServer
            | Self::UnknownTool
            | Self::UnknownPrompt
            | Self::StaleReference
            | Self::NotSupported
            | Self::InvalidConfig
            | Self::Spill
            | Self::Tokenizer
            | Self::Pins
            | Self::NoState
            | Self::PolicyFile
            | Self::NoBackupDir
            | Self::NoSuchRule
            | Self::TrustStore
            | Self::InvalidDefinition
            | Self::Inexpressible
            | Self::NotStdio
            | Self::TargetInvalid
            | Self::NothingToImport
            | Self::Conflict
            | Self::NotImportable
            | Self::WriteFailed
            | Self::Unresolved
            | Self::Internal
            | Self::NothingToTrust => Exit::Usage,
            Self::Untrusted
            | Self::Disabled
            | Self::Denied
            | Self::ApprovalRequired
            | Self::NotReadOnly
            | Self::RootsOutsideSandbox
            | Self::NotConfirmed
            | Self::InputNeeded => Exit::Refused,
            Self::AuthRequired { .. } | Self::AuthFailed => Exit::AuthRequired,
            Self::SpawnFailed { .. }
            | Self::Exited { .. }
            | Self::HttpStatus { .. }
            | Self::NotMcp { .. }
            | Self::Protocol
            | Self::Tls
            | Self::Dns
            | Self::Refused
            | Self::SandboxRefused { .. }
            | Self::Transport
            | Self::Unreachable { .. }
            | Self::HostConnect => Exit::Connection,
            Self::ServerError { .. } | Self::ToolError => Exit::ServerError,
            Self::Timeout { .. } | Self::Cancelled => Exit::Timeout,
            Self::Limit { .. } | Self::InputRounds { .. } => Exit::Limit,
        }
    }

    /// [`ErrorClass::exit`] as the process's exit status.
    pub fn exit_code(&self) -> u8 {
        self.exit() as u8
    }

    /// Whether the class says the connection could not be made or was lost (what the
    /// console's log shows as a failed connection), rather than that an operation failed.
    pub fn is_connection(&self) -> bool {
        match self {
            Self::MissingEnv { .. }
            | Self::SpawnFailed { .. }
            | Self::Exited { .. }
            | Self::Timeout { .. }
            | Self::HttpStatus { .. }
            | Self::AuthRequired { .. }
            | Self::NotMcp { .. }
            | Self::Protocol
            | Self::Tls
            | Self::Dns
            | Self::Refused => true,
            Self::Cancelled
            | Self::Limit { .. }
            | Self::InputRounds { .. }
            | Self::ServerError { .. }
            | Self::SandboxRefused { .. }
            | Self::InvalidRequest
            | Self::UnknownServer
            | Self::UnknownTool
            | Self::UnknownPrompt
            | Self::StaleReference
            | Self::NotSupported
            | Self::InvalidConfig
            | Self::Untrusted
            | Self::Disabled
            | Self::Denied
            | Self::ApprovalRequired
            | Self::NotReadOnly
            | Self::RootsOutsideSandbox
            | Self::ToolError
            | Self::Transport
            | Self::Spill
            | Self::Tokenizer
            | Self::Pins
            | Self::NoState
            | Self::Unreachable { .. }
            | Self::PolicyFile
            | Self::NoBackupDir
            | Self::NoSuchRule
            | Self::AuthFailed
            | Self::TrustStore
            | Self::NotConfirmed
            | Self::InvalidDefinition
            | Self::Inexpressible
            | Self::NotStdio
            | Self::TargetInvalid
            | Self::NothingToImport
            | Self::Conflict
            | Self::NotImportable
            | Self::WriteFailed
            | Self::InputNeeded
            | Self::Unresolved
            | Self::Internal
            | Self::HostConnect
            | Self::NothingToTrust => false,
        }
    }

    /// A 401 (sign in), as opposed to a 403's demand for more scopes (step up).
    pub fn needs_sign_in(&self) -> bool {
        matches!(self, Self::AuthRequired { code, .. } if *code != 403)
    }
}

/// What went wrong, in a few words for a person (the message says the rest).
impl std::fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MissingEnv { variable } => {
                write!(f, "the environment variable `{variable}` is not set")
            }
            Self::SpawnFailed { os_error } => {
                write!(f, "the server could not be started ({os_error})")
            }
            Self::Exited { status, .. } => write!(f, "the server process exited ({status})"),
            Self::Timeout { after_ms: 0 } => f.write_str("it took too long"),
            Self::Timeout { after_ms } => write!(f, "no answer within {after_ms} ms"),
            Self::HttpStatus { code } => write!(f, "the server answered HTTP {code}"),
            Self::AuthRequired { code: 403, .. } => {
                f.write_str("the server wants more permissions (scopes) than were granted")
            }
            Self::AuthRequired { .. } => f.write_str("the server needs you to sign in"),
            Self::NotMcp { .. } => f.write_str("the address does not answer as an MCP server"),
            Self::Protocol => f.write_str("the server broke the protocol"),
            Self::Tls => f.write_str("the secure connection (TLS) failed"),
            Self::Dns => f.write_str("the host name could not be found"),
            Self::Refused => f.write_str("nothing accepted the connection"),
            Self::Cancelled => f.write_str("it was cancelled"),
            Self::Limit { bound } if bound.is_empty() => f.write_str("a size limit was hit"),
            Self::Limit { bound } => write!(f, "a size limit was hit ({bound})"),
            Self::InputRounds { rounds } => {
                write!(f, "the server kept asking for input ({rounds} rounds)")
            }
            Self::ServerError { code } => write!(f, "the server answered with error {code}"),
            Self::SandboxRefused { rule, .. } => {
                write!(f, "the sandbox cannot be enforced here ({rule})")
            }
            Self::InvalidRequest => f.write_str("the request does not fit"),
            Self::UnknownServer => f.write_str("there is no server of that name"),
            Self::UnknownTool => f.write_str("the server has no tool of that name"),
            Self::UnknownPrompt => f.write_str("the server has no prompt of that name"),
            Self::StaleReference => f.write_str("the resource reference is out of date"),
            Self::NotSupported => f.write_str("the server does not offer that"),
            Self::InvalidConfig => f.write_str("the server's configuration has errors"),
            Self::Untrusted => f.write_str("the project's servers are not trusted"),
            Self::Disabled => f.write_str("the server is disabled"),
            Self::Denied => f.write_str("it was not allowed"),
            Self::ApprovalRequired => f.write_str("it needs an approval nobody can give"),
            Self::NotReadOnly => f.write_str("the tool is not marked read-only"),
            Self::RootsOutsideSandbox => f.write_str("the sandbox cannot read those roots"),
            Self::ToolError => f.write_str("the tool reported an error"),
            Self::Transport => f.write_str("the server could not be told"),
            Self::Spill => f.write_str("a spill file could not be written"),
            Self::Tokenizer => f.write_str("the tokens could not be counted"),
            Self::Pins => f.write_str("the pins could not be read or written"),
            Self::NoState => f.write_str("there is no state directory"),
            Self::Unreachable { servers } => {
                let failed = servers.iter().filter(|s| s.error.is_some()).count();
                write!(f, "{failed} server(s) did not answer")
            }
            Self::PolicyFile => f.write_str("the policy file could not be read or written"),
            Self::NoBackupDir => f.write_str("there is no place for a backup"),
            Self::NoSuchRule => f.write_str("the policy has no such rule"),
            Self::AuthFailed => f.write_str("signing in failed"),
            Self::TrustStore => f.write_str("the trust store could not be read or written"),
            Self::NotConfirmed => f.write_str("it was not confirmed"),
            Self::InvalidDefinition => f.write_str("the definition has errors"),
            Self::Inexpressible => f.write_str("the other host cannot express the definition"),
            Self::NotStdio => f.write_str("only a stdio server runs in a sandbox"),
            Self::TargetInvalid => f.write_str("the file to import into is not usable"),
            Self::NothingToImport => f.write_str("there is nothing to import"),
            Self::Conflict => f.write_str("a different server has that name already"),
            Self::NotImportable => f.write_str("the import would not be valid"),
            Self::WriteFailed => f.write_str("the file could not be written"),
            Self::InputNeeded => f.write_str("the definition needs input values"),
            Self::Unresolved => f.write_str("the definition's references could not be resolved"),
            Self::Internal => f.write_str("mcpdeck itself failed"),
            Self::HostConnect => f.write_str("the other host's server could not be reached"),
            Self::NothingToTrust => f.write_str("the project defines no server to trust"),
        }
    }
}
