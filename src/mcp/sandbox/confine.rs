//! Confining the launcher's own process (Linux): resource limits, then the Landlock ruleset,
//! then, for `"net": "none"`, a seccomp filter refusing every socket but Unix and netlink ones.
//! Each step is inherited across `exec`, so the server starts inside all three. Safe APIs
//! only; `unsafe_code` stays forbidden.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

use super::kernel;
use super::profile::Profile;
use super::rules::NetRule;

/// What every program needs to start and run: the system's programs and libraries, a few
/// files of `/etc` that name users, hosts and time, `/proc` and the CPU and cgroup facts
/// runtimes size themselves by. Missing ones are skipped.
const SYSTEM_EXEC: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
const SYSTEM_READ: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/alternatives",
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
];
const SYSTEM_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Applies `profile` to this process. `Err` says why it could not, in words.
pub(crate) fn confine(profile: &Profile) -> Result<(), String> {
    let abi = kernel::abi();
    if let Some((_, refusal)) = kernel::refusal(profile, abi) {
        return Err(refusal);
    }
    limits(profile)?;
    if abi > 0 {
        landlock(profile, abi)?;
    }
    if profile.net == NetRule::None {
        socket_filter()?;
    }
    Ok(())
}

fn limits(profile: &Profile) -> Result<(), String> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let set = |resource, value: u64, what: &str| {
        setrlimit(
            resource,
            Rlimit {
                current: Some(value),
                maximum: Some(value),
            },
        )
        .map_err(|e| format!("could not limit {what}: {e}"))
    };
    if let Some(mb) = profile.limits.memory_mb {
        set(Resource::As, mb.saturating_mul(1 << 20), "memory")?;
    }
    if let Some(n) = profile.limits.processes {
        set(Resource::Nproc, n, "processes")?;
    }
    Ok(())
}

fn crate_abi(abi: u8) -> ABI {
    ABI::from(i32::from(abi))
}

fn landlock(profile: &Profile, abi: u8) -> Result<(), String> {
    let level = if profile.best_effort {
        CompatLevel::BestEffort
    } else {
        CompatLevel::HardRequirement
    };
    let v = crate_abi(abi);
    let err = |e: landlock::RulesetError| format!("Landlock refused the rules: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(level)
        .handle_access(AccessFs::from_all(v))
        .map_err(err)?;
    let confine_net = profile.net != NetRule::Any;
    if confine_net && abi >= kernel::ABI_TCP {
        ruleset = ruleset.handle_access(AccessNet::from_all(v)).map_err(err)?;
    }
    if abi >= kernel::ABI_SCOPE {
        let scopes: BitFlags<Scope> = if confine_net {
            Scope::Signal | Scope::AbstractUnixSocket
        } else {
            Scope::Signal.into()
        };
        ruleset = ruleset.scope(scopes).map_err(err)?;
    }
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let exec = read | AccessFs::Execute;
    let write = AccessFs::from_all(v) & !AccessFs::Execute;
    let owned = |list: &[PathBuf]| list.to_vec();
    let system = |list: &[&str]| list.iter().map(PathBuf::from).collect::<Vec<_>>();
    let mut created = ruleset
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(system(SYSTEM_EXEC), exec))
        .and_then(|r| r.add_rules(path_beneath_rules(system(SYSTEM_READ), read)))
        .and_then(|r| r.add_rules(path_beneath_rules(system(SYSTEM_DEVICES), write)))
        .and_then(|r| r.add_rules(path_beneath_rules(owned(&profile.read), read)))
        .and_then(|r| r.add_rules(path_beneath_rules(owned(&profile.exec), exec)))
        .and_then(|r| r.add_rules(path_beneath_rules(owned(&profile.write), write)))
        .map_err(err)?;
    if let NetRule::Ports { connect, bind } = &profile.net {
        let ports = connect
            .iter()
            .map(|p| NetPort::new(*p, AccessNet::ConnectTcp))
            .chain(bind.iter().map(|p| NetPort::new(*p, AccessNet::BindTcp)));
        created = created.add_rules(ports.map(Ok)).map_err(err)?;
    }
    let status = created.restrict_self().map_err(err)?;
    if status.ruleset == RulesetStatus::NotEnforced && !profile.best_effort {
        return Err("Landlock did not enforce the rules".into());
    }
    warn_missing(profile);
    Ok(())
}

/// Says on stderr (the server's log) which of the definition's paths do not exist: a rule for
/// a missing path grants nothing, even once it is created.
fn warn_missing(profile: &Profile) {
    let all = profile
        .read
        .iter()
        .chain(&profile.write)
        .chain(&profile.exec);
    for path in all.filter(|p| !Path::new(p).exists()) {
        eprintln!(
            "mcpdeck sandbox: {} does not exist; its rule grants nothing",
            path.display()
        );
    }
}

/// Refuses (`EACCES`) every socket but Unix and netlink ones, and `io_uring` (whose operations
/// would not pass the filter).
fn socket_filter() -> Result<(), String> {
    fn err(e: impl std::fmt::Display) -> String {
        format!("the socket filter could not be built: {e}")
    }
    let family_ne = |family: i32| {
        SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            u64::from(family.unsigned_abs()),
        )
    };
    let other_family = SeccompRule::new(vec![
        family_ne(libc::AF_UNIX).map_err(err)?,
        family_ne(libc::AF_NETLINK).map_err(err)?,
    ])
    .map_err(err)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![other_family.clone()]);
    rules.insert(libc::SYS_socketpair, vec![other_family]);
    rules.insert(libc::SYS_io_uring_setup, vec![]);
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("no socket filter for this architecture: {e}"))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES.unsigned_abs()),
        arch,
    )
    .map_err(err)?;
    let program: seccompiler::BpfProgram = filter.try_into().map_err(err)?;
    seccompiler::apply_filter(&program).map_err(err)
}
