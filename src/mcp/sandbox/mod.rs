//! Stdio servers in a sandbox: a definition's `sandbox` block (`rules`), resolved for one start
//! (`profile`), checked against the kernel's Landlock ABI so a rule the kernel cannot enforce
//! refuses the start (`kernel`), and applied by the hidden launcher mode of the `mcpdeck` binary
//! to its own process before it executes the server (`launcher`, `confine`). The console, the
//! CLI and serve mode all spawn stdio servers through `connection::stdio`, which starts a
//! sandboxed definition through the launcher.

#[cfg(target_os = "linux")]
mod confine;
pub(crate) mod hint;
pub(crate) mod kernel;
pub(crate) mod launcher;
pub(crate) mod profile;
pub(crate) mod rules;
pub(crate) mod suggest;

pub use hint::note;
pub use kernel::{abi, missing_rule, refusal};
pub use launcher::{LAUNCHER_ARG, REFUSED_EXIT, launcher_main};
pub use profile::{Profile, ResolveError};
pub use rules::{Limits, NetRule, Preset, SandboxDef};
pub use suggest::{Suggestion, suggest};

/// Confines this process to `profile`.
#[cfg(target_os = "linux")]
pub(crate) fn confine_self(profile: &Profile) -> Result<(), String> {
    confine::confine(profile)
}

/// Landlock is Linux's: elsewhere a sandboxed server never starts.
#[cfg(not(target_os = "linux"))]
pub(crate) fn confine_self(_: &Profile) -> Result<(), String> {
    Err("sandboxed servers run on Linux only (Landlock)".into())
}
