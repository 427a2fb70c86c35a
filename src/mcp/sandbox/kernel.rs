//! What the kernel offers and what a profile needs of it: the Landlock ABI version, and which
//! version each rule requires. Failing closed is decided here, before anything starts.

use super::profile::Profile;
use super::rules::NetRule;

/// Landlock ABI version that makes filesystem write rules complete (truncation is confined).
pub(crate) const ABI_FS: u8 = 3;
/// Landlock ABI version of TCP port rules.
pub(crate) const ABI_TCP: u8 = 4;
/// Landlock ABI version that scopes abstract Unix sockets and signals to the sandbox.
pub(crate) const ABI_SCOPE: u8 = 6;

/// The first rule of `profile` the kernel's ABI `abi` cannot enforce, with the ABI it needs.
pub fn missing_rule(profile: &Profile, abi: u8) -> Option<(&'static str, u8)> {
    let mut needs = vec![("read/write/exec", ABI_FS)];
    match &profile.net {
        NetRule::Any => {}
        NetRule::None => needs.push(("net: \"none\"", ABI_SCOPE)),
        NetRule::Ports { .. } => needs.push(("net: TCP ports", ABI_TCP)),
    }
    needs.into_iter().find(|(_, need)| abi < *need)
}

/// Why `profile` cannot be enforced here: the rule and the refusal in words. A rule the
/// kernel's ABI `abi` (0: no Landlock) cannot enforce refuses unless the profile opts into best
/// effort; so does a process limit for root, which the kernel does not apply to root.
pub fn refusal(profile: &Profile, abi: u8) -> Option<(&'static str, String)> {
    if profile.best_effort {
        return None;
    }
    if profile.limits.processes.is_some() && rustix::process::getuid().is_root() {
        return Some((
            "limits.processes",
            "the process limit is a per-user resource limit, which the kernel does not apply \
             to root; run mcpdeck as an ordinary user, drop the limit, or set \"bestEffort\": true"
                .to_owned(),
        ));
    }
    let (rule, need) = missing_rule(profile, abi)?;
    let offers = if abi == 0 {
        "no Landlock (Linux 5.13 or later with Landlock enabled is needed)".to_owned()
    } else {
        format!("Landlock ABI {abi}")
    };
    Some((
        rule,
        format!(
            "the server is sandboxed and the kernel offers {offers}; the rule `{rule}` needs ABI \
             {need} or later. Refusing to start it unconfined; set \"bestEffort\": true in its \
             `sandbox` to run it with what the kernel can enforce"
        ),
    ))
}

/// The running kernel's Landlock ABI version (0 when it has none).
#[cfg(target_os = "linux")]
pub fn abi() -> u8 {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
        RulesetCreatedAttr, Scope,
    };
    let hard = || Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
    let fs = |access: landlock::BitFlags<AccessFs>| hard().handle_access(access).is_ok();
    if fs(AccessFs::from_all(ABI::V9)) {
        return 9;
    }
    let logs = hard()
        .handle_access(AccessFs::Execute)
        .and_then(Ruleset::create)
        .and_then(|created| created.log_new_exec(true))
        .is_ok();
    if logs {
        return 7;
    }
    if hard().scope(Scope::Signal).is_ok() {
        return 6;
    }
    if fs(AccessFs::IoctlDev.into()) {
        return 5;
    }
    if hard().handle_access(AccessNet::BindTcp).is_ok() {
        return 4;
    }
    for (access, abi) in [
        (AccessFs::Truncate, 3),
        (AccessFs::Refer, 2),
        (AccessFs::Execute, 1),
    ] {
        if fs(access.into()) {
            return abi;
        }
    }
    0
}

/// Landlock is Linux's.
#[cfg(not(target_os = "linux"))]
pub fn abi() -> u8 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::sandbox::Limits;

    fn profile(net: NetRule, best_effort: bool) -> Profile {
        Profile {
            read: vec![],
            write: vec![],
            exec: vec![],
            net,
            limits: Limits::default(),
            best_effort,
        }
    }

    #[test]
    fn an_old_kernel_refuses_the_rule_it_cannot_enforce() {
        let ports = NetRule::Ports {
            connect: vec![443],
            bind: vec![],
        };
        assert_eq!(missing_rule(&profile(NetRule::Any, false), 3), None);
        assert_eq!(
            missing_rule(&profile(ports.clone(), false), 3),
            Some(("net: TCP ports", 4))
        );
        let (rule, said) = refusal(&profile(ports.clone(), false), 3).expect("refused");
        assert_eq!(rule, "net: TCP ports");
        assert!(
            said.contains("Landlock ABI 3") && said.contains("needs ABI 4"),
            "{said}"
        );
        let (_, said) = refusal(&profile(NetRule::None, false), 0).expect("refused");
        assert!(said.contains("no Landlock"), "{said}");
        assert_eq!(refusal(&profile(ports, true), 0), None);
        assert_eq!(refusal(&profile(NetRule::None, false), 7), None);
    }
}
