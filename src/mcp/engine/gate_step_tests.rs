//! Every path through the gate, without an engine, an approver or a clock: each policy verdict
//! crossed with whether an approver is attached, whether the tool drifted, the mode, and every
//! way the question can end (each answer, a timeout, a cancellation, every face gone).

use super::*;

/// One operation's situation at the gate: the flags are the dimensions the tests cross.
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each flag is one independent dimension of the cases crossed"
)]
struct Case {
    verdict: Verdict,
    call: bool,
    session_approved: bool,
    available: bool,
    tool_changed: bool,
    audit: bool,
    settled: Settled<Decision>,
}

/// Drives the machine as the engine does, in the engine's order: the verdict; an approver's
/// presence when it is wanted; the details; the answer once the question is asked. Returns
/// how it ended and whether the approver was asked.
fn drive(case: &Case) -> (Result<Passed, Refusal>, bool) {
    let mut asked = false;
    let mut run = || -> Result<Passed, Refusal> {
        let mut state = step(
            State::Start,
            Event::Verdict {
                verdict: &case.verdict,
                call: case.call,
                session_approved: case.session_approved,
            },
        )?;
        loop {
            let event = match state {
                State::Pass(passed) => return Ok(passed),
                State::NeedsApprover { .. } => Event::Approver {
                    available: case.available,
                },
                State::Ask | State::Rule => Event::Details {
                    tool_changed: case.tool_changed,
                    audit: case.audit,
                },
                State::Asked => {
                    asked = true;
                    Event::Settled(&case.settled)
                }
                State::Start => unreachable!("the machine never returns to its start"),
            };
            state = step(state, event)?;
        }
    };
    let outcome = run();
    (outcome, asked)
}

fn verdicts() -> [Verdict; 3] {
    [
        Verdict::Allow,
        Verdict::Deny("no-writes".into()),
        Verdict::Ask,
    ]
}

fn endings() -> [Settled<Decision>; 6] {
    [
        Settled::Answered(Decision::AllowOnce),
        Settled::Answered(Decision::AllowSession),
        Settled::Answered(Decision::Deny),
        Settled::TimedOut,
        Settled::Cancelled,
        Settled::Abandoned,
    ]
}

/// What the gate must do in `case`, written from the policy's rules rather than the machine.
fn expected(case: &Case) -> (Result<Passed, Refusal>, bool) {
    let ended = match &case.settled {
        Settled::Answered(Decision::AllowOnce) => Ok(Passed::ApprovedOnce),
        Settled::Answered(Decision::AllowSession) => Ok(Passed::ApprovedSession),
        Settled::Answered(Decision::Deny) | Settled::Abandoned => Err(Refusal::NotApproved),
        Settled::TimedOut => Err(Refusal::TimedOut),
        Settled::Cancelled => Err(Refusal::Cancelled),
    };
    match &case.verdict {
        Verdict::Deny(rule) => (Err(Refusal::Denied(rule.clone())), false),
        Verdict::Allow if !case.call => (Ok(Passed::Allowed), false),
        Verdict::Allow if !case.tool_changed => (Ok(Passed::Allowed), false),
        Verdict::Allow if case.audit => (Ok(Passed::AllowedDrifted), false),
        Verdict::Allow if !case.available => (Err(Refusal::DriftedNoApprover), false),
        Verdict::Ask if case.session_approved => (Ok(Passed::SessionApproval), false),
        Verdict::Ask if !case.available => (Err(Refusal::NoApprover), false),
        Verdict::Allow | Verdict::Ask => (ended, true),
    }
}

#[test]
fn every_combination_ends_as_the_policy_says() {
    let mut count = 0;
    for verdict in verdicts() {
        for flags in 0..32u8 {
            for settled in endings() {
                let case = Case {
                    verdict: verdict.clone(),
                    call: flags & 1 != 0,
                    session_approved: flags & 2 != 0,
                    available: flags & 4 != 0,
                    tool_changed: flags & 8 != 0,
                    audit: flags & 16 != 0,
                    settled,
                };
                assert_eq!(drive(&case), expected(&case), "{case:?}");
                count += 1;
            }
        }
    }
    assert_eq!(count, 3 * 32 * 6);
}

#[test]
fn an_ask_rule_asks_and_each_ending_is_named_for_the_trace() {
    let names: Vec<&str> = endings()
        .iter()
        .map(|settled| {
            let case = Case {
                verdict: Verdict::Ask,
                call: true,
                session_approved: false,
                available: true,
                tool_changed: false,
                audit: false,
                settled: settled.clone(),
            };
            match drive(&case) {
                (Ok(passed), true) => passed.name(),
                (Err(refusal), true) => refusal.name(),
                other => panic!("not asked: {other:?}"),
            }
        })
        .collect();
    assert_eq!(
        names,
        [
            "approved_once",
            "approved_session",
            "approval_denied",
            "approval_timeout",
            "approval_cancelled",
            "approval_denied",
        ]
    );
}

#[test]
fn nobody_to_ask_fails_closed_before_the_details() {
    let state = step(
        State::Start,
        Event::Verdict {
            verdict: &Verdict::Ask,
            call: false,
            session_approved: false,
        },
    );
    assert_eq!(state, Ok(State::NeedsApprover { drifted: false }));
    let refused = step(
        State::NeedsApprover { drifted: false },
        Event::Approver { available: false },
    );
    assert_eq!(refused, Err(Refusal::NoApprover));
    assert_eq!(Refusal::NoApprover.name(), "approval_required");
    assert_eq!(Refusal::DriftedNoApprover.name(), "approval_required");
}

#[test]
fn a_pass_ignores_later_events() {
    let pass = State::Pass(Passed::Allowed);
    let details = Event::Details {
        tool_changed: true,
        audit: false,
    };
    assert_eq!(step(pass, details), Ok(pass));
    assert_eq!(step(pass, Event::Settled(&Settled::TimedOut)), Ok(pass));
}
