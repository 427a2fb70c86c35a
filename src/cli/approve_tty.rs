//! Asking a person to approve one operation, on a terminal: `y` allows once, `s` for this
//! session, `a` always — an allow rule for exactly this server and operation added to the
//! user's policy file after a second confirmation (atomic, the previous file backed up) — and
//! anything else denies. The headless CLI's approver asks on the controlling terminal
//! (`/dev/tty`, so it works with stdout piped); `mcpdeck approvals` asks on its own stdin.
//! Without a terminal there is no approver and approvals fail closed.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::ask::is_yes;
use crate::mcp::pending::Reply;
use crate::mcp::policy::{ApprovalRequest, Approver, Decision, add_allow_rule, exact_rule};
use crate::mcp::sanitize::sanitize;

/// Asks on the controlling terminal.
pub struct TtyApprover {
    /// Where "always" adds its allow rule.
    policy_path: PathBuf,
}

impl TtyApprover {
    /// An approver when a controlling terminal can be opened for reading and writing.
    pub fn open(policy_path: PathBuf) -> Option<Self> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()
            .map(|_| Self { policy_path })
    }
}

impl Approver for TtyApprover {
    fn ask(&self, request: ApprovalRequest, reply: Reply<Decision>) {
        let policy_path = self.policy_path.clone();
        std::thread::spawn(move || {
            let asked = crate::cli::progress::pause(|| on_tty(&request, &policy_path));
            let _ = reply.answer(asked.unwrap_or(Decision::Deny));
        });
    }
}

fn on_tty(request: &ApprovalRequest, policy_path: &Path) -> std::io::Result<Decision> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = std::io::BufReader::new(tty);
    let _ = write!(out, "mcpdeck: ");
    Ok(ask(&mut input, &mut out, None, request, policy_path))
}

fn line(input: &mut dyn BufRead) -> Option<String> {
    let mut answer = String::new();
    match input.read_line(&mut answer) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(answer.trim().to_owned()),
    }
}

/// Shows `request` on `out` and reads the answer from `input`. `who` names the asker when it is
/// not this process (a serve session).
pub fn ask(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    who: Option<&str>,
    request: &ApprovalRequest,
    policy_path: &Path,
) -> Decision {
    let cut = crate::mcp::policy::approval_text::arguments_cut(request);
    let choices = format!(
        "  [y] once  [s] this session  [a] always (adds an allow rule){}  [anything else] deny: ",
        if cut { "  [v] all arguments" } else { "" }
    );
    let _ = write!(
        out,
        "{}\n{choices}",
        crate::mcp::policy::approval_text::describe(request, who)
    );
    loop {
        let _ = out.flush();
        return match line(input).as_deref() {
            Some("y" | "Y" | "yes") => Decision::AllowOnce,
            Some("s" | "S" | "session") => Decision::AllowSession,
            Some("a" | "A" | "always") => always(input, out, request, policy_path),
            // The whole arguments go to the terminal (its scrollback scrolls), then the
            // question again.
            Some("v" | "V") if cut => {
                let _ = write!(
                    out,
                    "{}\n{choices}",
                    crate::mcp::policy::approval_text::all_arguments(request)
                );
                continue;
            }
            _ => Decision::Deny,
        };
    }
}

/// The second confirmation, then the rule; any failure denies.
fn always(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    request: &ApprovalRequest,
    policy_path: &Path,
) -> Decision {
    let rule = exact_rule(&request.server, &request.operation);
    let _ = write!(
        out,
        "  add `{}` to the allow rules of {}? [y/N] ",
        sanitize(&rule),
        policy_path.display()
    );
    let _ = out.flush();
    if !line(input).is_some_and(|a| is_yes(&a)) {
        let _ = writeln!(out, "  not added; denied");
        return Decision::Deny;
    }
    let Some(backups) = crate::mcp::backup::backup_dir() else {
        let _ = writeln!(out, "  no place for a backup (set HOME); denied");
        return Decision::Deny;
    };
    match add_allow_rule(policy_path, &rule, &backups) {
        Ok(_) => {
            let _ = writeln!(out, "  added; later sessions allow it without asking");
            Decision::AllowSession
        }
        Err(e) => {
            let _ = writeln!(out, "  {}; denied", sanitize(&e.to_string()));
            Decision::Deny
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v_shows_every_argument_then_asks_again() {
        let items: Vec<String> = (1..=300).map(|i| format!("  \"k{i}\": {i}")).collect();
        let request = crate::mcp::policy::approval_text::request_with_arguments(format!(
            "{{\n{}\n}}",
            items.join(",\n")
        ));
        let mut input = std::io::Cursor::new(b"v\ny\n".to_vec());
        let mut out = Vec::new();
        let decision = ask(
            &mut input,
            &mut out,
            None,
            &request,
            Path::new("/nonexistent"),
        );
        assert_eq!(decision, Decision::AllowOnce);
        let out = String::from_utf8(out).expect("utf-8");
        assert!(out.contains("[v] all arguments"), "{out:.300}");
        let first = out
            .find("\"k300\": 300")
            .expect("the last argument is shown");
        assert!(first > out.find("all arguments:").expect("after v"));
        assert_eq!(out.matches("[y] once").count(), 2, "asked again");
    }
}
