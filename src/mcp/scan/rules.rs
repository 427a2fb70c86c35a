//! The scan's rules. Character rules look at every character; text rules are case-insensitive
//! regular expressions matched on the text with invisible characters taken out (so a word
//! split by zero-width spaces still reads as the word), each within one sentence or line.

use std::sync::LazyLock;

use regex::Regex;

use super::Kind;

/// One rule, as the README documents it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The id findings carry.
    pub id: &'static str,
    /// What it looks for.
    pub about: &'static str,
}

/// Every rule, in the order findings of one field are reported.
pub const RULES: [Rule; 13] = [
    Rule {
        id: "invisible-character",
        about: "zero-width and other invisible format characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+00AD, U+180E, U+034F, Hangul fillers)",
    },
    Rule {
        id: "tag-character",
        about: "Unicode tag characters (U+E0000–U+E007F), which can spell text no one sees",
    },
    Rule {
        id: "bidi-control",
        about: "bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which reorder what is shown",
    },
    Rule {
        id: "control-character",
        about: "C0 controls other than tab and newline, DEL and C1 controls (terminal escape sequences can hide text)",
    },
    Rule {
        id: "look-alike-name",
        about: "a tool, prompt or template name with characters outside ASCII, which can pass for another name",
    },
    Rule {
        id: "override-instructions",
        about: "asks the model to ignore or replace its instructions (`ignore previous instructions`, `you are now`, `developer mode`)",
    },
    Rule {
        id: "role-markup",
        about: "markup that poses as a higher authority: `<IMPORTANT>`, `<SYSTEM>`, `[SYSTEM]`, chat-template tokens",
    },
    Rule {
        id: "conceal-from-user",
        about: "asks to hide something from the person (`do not tell the user`, `without informing`, `secretly`, `silently`)",
    },
    Rule {
        id: "skip-confirmation",
        about: "asks to act without the person's confirmation or approval",
    },
    Rule {
        id: "read-secrets",
        about: "asks to read, pass or send credentials, keys, tokens, passwords, `.env` or SSH files, the environment, or the whole conversation",
    },
    Rule {
        id: "send-elsewhere",
        about: "asks to send data to a URL or an address, to render a URL carrying data, or to pipe a download into a shell",
    },
    Rule {
        id: "other-tools",
        about: "speaks about other tools or servers: when they are called, what they must do, never to use them, to prefer this one",
    },
    Rule {
        id: "hidden-or-long",
        about: "HTML comments, long runs of blank space, long encoded blobs, and unusual length (a text over 1,600 characters, a name or title over 200, instructions over 8,000)",
    },
];

/// One match: the rule, and where (characters) in the field's text.
pub(super) struct Hit {
    pub rule: &'static str,
    pub offset: usize,
    pub len: usize,
}

pub(super) fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{ad}'
        | '\u{180e}' | '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}')
}

pub(super) fn is_tag(c: char) -> bool {
    matches!(c, '\u{e0000}'..='\u{e007f}')
}

pub(super) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Every rule's hits in one string of a definition.
pub(super) fn check(kind: Kind, field: &str, text: &str, is_key: bool) -> Vec<Hit> {
    let mut hits = characters(text);
    if !is_key && field == "/name" && kind != Kind::Server && !text.is_ascii() {
        let offset = text.chars().position(|c| !c.is_ascii()).unwrap_or(0);
        hits.push(Hit {
            rule: "look-alike-name",
            offset,
            len: 1,
        });
    }
    // A key reads as words: `contents_of_the_ssh_key` is "contents of the ssh key".
    let words;
    let text = if is_key {
        words = text.replace(['_', '-'], " ");
        &words
    } else {
        text
    };
    let (folded, offsets) = super::text::folded(text);
    for (rule, patterns) in &*TEXT_RULES {
        if let Some((start, end)) = patterns.iter().find_map(|p| first_match(p, &folded)) {
            let offset = offsets.get(start).copied().unwrap_or(0);
            hits.push(Hit {
                rule,
                offset,
                len: end - start,
            });
        }
    }
    if let Some(hit) = length(kind, field, text) {
        hits.push(hit);
    }
    hits
}

/// The first match of `re` in `text`, in characters.
fn first_match(re: &Regex, text: &str) -> Option<(usize, usize)> {
    let m = re.find(text)?;
    let start = text[..m.start()].chars().count();
    Some((start, start + m.as_str().chars().count()))
}

/// The character rules: the first offending character of each kind.
fn characters(text: &str) -> Vec<Hit> {
    type Check = (&'static str, fn(char) -> bool);
    let checks: [Check; 4] = [
        ("invisible-character", is_invisible),
        ("tag-character", is_tag),
        ("bidi-control", is_bidi),
        ("control-character", is_control),
    ];
    checks
        .iter()
        .filter_map(|(rule, test)| {
            let offset = text.chars().position(test)?;
            let len = text.chars().skip(offset).take_while(|c| test(*c)).count();
            Some(Hit { rule, offset, len })
        })
        .collect()
}

/// Unusual length, blank runs, comments and encoded blobs.
fn length(kind: Kind, field: &str, text: &str) -> Option<Hit> {
    let chars = text.chars().count();
    let limit = match (kind, field) {
        (Kind::Server, "/instructions") => 8_000,
        (
            _,
            "/name" | "/title" | "/serverInfo/name" | "/serverInfo/title" | "/serverInfo/version",
        ) => 200,
        _ => 1_600,
    };
    if chars > limit {
        return Some(Hit {
            rule: "hidden-or-long",
            offset: limit,
            len: 1,
        });
    }
    let (start, end) = HIDDEN.iter().find_map(|p| first_match(p, text))?;
    Some(Hit {
        rule: "hidden-or-long",
        offset: start,
        len: end - start,
    })
}

fn compile(patterns: &[&str]) -> Vec<Regex> {
    patterns
        .iter()
        .filter_map(|p| {
            let re = Regex::new(&format!("(?i){p}"));
            // The patterns are constants: the unit tests (debug builds) fail on a bad one.
            debug_assert!(re.is_ok(), "{p}: {re:?}");
            re.ok()
        })
        .collect()
}

/// Within one sentence: no full stop, line break, `!` or `?` in between.
macro_rules! near {
    () => {
        r"[^.!?\n]{0,60}?"
    };
}

static HIDDEN: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    compile(&[
        r"<!--",
        r"display\s*:\s*none",
        r" {24,}",
        r"(?:[ \t]*\n){8,}",
        r"[A-Za-z0-9+/]{60,}={0,2}",
    ])
});

#[allow(clippy::type_complexity)]
static TEXT_RULES: LazyLock<Vec<(&'static str, Vec<Regex>)>> = LazyLock::new(|| {
    let verbs = r"\b(?:read\w*|open\w*|cat|load\w*|includ\w*|pass\w*|send\w*|attach\w*|append\w*|add|provid\w*|cop(?:y|ied|ies)\w*|extract\w*|collect\w*|gather\w*|dump\w*|upload\w*|forward\w*|put|insert\w*|embed\w*|supply\w*|plac\w*|fetch\w*|grab\w*|harvest\w*|leak\w*|share\w*|exfiltrat\w*)\b";
    let secrets = r"(?:~/\.ssh|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bid (?:rsa|dsa|ed25519)\b|\.env\b|\.aws\b|aws.credentials|\.npmrc|\.netrc|\.pypirc|\.git-credentials|\.gitconfig|\.kube/config|\.docker/config|gh/hosts|mcp\.json|/etc/(?:passwd|shadow)|\bapi[ _-]?keys?\b|\baccess[ _-]?tokens?\b|\bsecret[ _-]?keys?\b|\bprivate[ _-]?keys?\b|\bssh[ _-]?keys?\b|\bpasswords?\b|\bcredentials?\b|\bcookies\b|\benvironment variables\b|\benv vars\b|process\.env|os\.environ|\bkeychain\b|\bseed phrase|\bsecrets\b|\btokens\b)";
    let send = r"\b(?:send\w*|post\w*|upload\w*|forward\w*|transmit\w*|report\w*|submit\w*|exfiltrat\w*|beacon\w*|push\w*|deliver\w*|cop(?:y|ied|ies)|bcc|cc|mirror\w*|leak\w*)\b";
    vec![
        (
            "override-instructions",
            compile(&[
                concat!(
                    r"\b(?:ignore|disregard|forget|override|bypass)\b",
                    near!(),
                    r"\b(?:instructions?|rules|directions|guidelines|guardrails|restrictions|policies|safety)\b"
                ),
                r"\byou are now\b",
                r"\b(?:developer|maintenance|god|jailbreak|unrestricted) mode\b",
                r"\bnew instructions\b",
                r"\bsystem (?:notice|override|message)\b",
                r"\bobey\b",
            ]),
        ),
        (
            "role-markup",
            compile(&[
                r"<\s*/?\s*(?:important|system|instructions?|admin|assistant|secret|hidden|critical)\s*>",
                r"\[\s*(?:system|inst|admin|assistant)\b[^\]\n]*\]",
                r"<\|[a-z_]+\|>",
                r"(?m)^\s*#+\s*system\b",
            ]),
        ),
        (
            "conceal-from-user",
            compile(&[
                concat!(
                    r"\b(?:do not|don't|never|must not|should not)\s+(?:tell|mention|inform|notify|alert|reveal|disclose|show|bring)\b",
                    near!(),
                    r"\b(?:user|human|person|operator|them)\b"
                ),
                r"\b(?:do not|don't|never)\s+(?:mention|reveal|disclose)\b",
                r"\bwithout (?:telling|informing|notifying|alerting|showing|letting)\b",
                r"\b(?:secretly|covertly|discreetly|surreptitiously)\b",
                // `silently` as the manner of something the model is to do (not "succeeds silently").
                r"\b(?:silently|quietly)\s+(?:\w+\s+){0,2}?(?:call|invoke|run|send|add|include|read|copy|upload|forward|execute|use|pass|append|save|keep|store)\w*\b",
                r"\bkeep (?:quiet|silent|(?:this|it) (?:secret|hidden|private))\b",
                concat!(
                    r"\b(?:hide|conceal)\b",
                    near!(),
                    r"\bfrom\b",
                    near!(),
                    r"\b(?:user|human|person|operator)\b"
                ),
                r"\bnot (?:to|with) the user\b",
                r"\buser (?:must|should) not (?:know|see|notice|be told)\b",
            ]),
        ),
        (
            "skip-confirmation",
            compile(&[
                concat!(
                    r"\b(?:without|never|do not|don't|no need to)\b",
                    near!(),
                    r"\b(?:ask\w*|request\w*|seek\w*|wait\w*)\b",
                    near!(),
                    r"\b(?:confirmation|permission|approval|consent)\b"
                ),
                concat!(
                    r"\b(?:approve|accept|allow)\b",
                    near!(),
                    r"\b(?:every|all|any)\b",
                    near!(),
                    r"\bwithout\b"
                ),
            ]),
        ),
        (
            "read-secrets",
            compile(&[
                &format!(r"{verbs}{}{secrets}", near!()),
                &format!(
                    r"{secrets}{}\b(?:here|verbatim|copied|into|as the)\b",
                    near!()
                ),
                &format!(
                    r"{verbs}{}\b(?:whole|entire|full|complete)\s+(?:conversation|chat|message history|history)\b",
                    near!()
                ),
            ]),
        ),
        (
            "send-elsewhere",
            compile(&[
                &format!(r"{send}[^\n]{{0,80}}?(?:https?|wss?|ftp)://"),
                &format!(r"{send}[^\n]{{0,60}}?[\w.+-]+@[\w-]+\.[\w.-]+"),
                r"!\[[^\]]*\]\(\s*https?://[^)\s]*[?{]",
                concat!(
                    r"\b(?:change|set|replace|switch)\b",
                    near!(),
                    r"\b(?:recipient|destination|to address|phone number)\b"
                ),
                r"\bcurl\b[^\n]{0,80}\|\s*(?:sh|bash|zsh)\b",
            ]),
        ),
        (
            "other-tools",
            compile(&[
                r"\b(?:other|another)\b[^.!?\n]{0,25}?\b(?:tools?|servers?|functions?)\b",
                concat!(
                    r"\b(?:when|whenever|before|after|each time|every time|for each|for every)\b",
                    near!(),
                    r"\b[a-z0-9]+_[a-z0-9_]+\b\)?\s+(?:tool\s+)?(?:is |are )?(?:invoked|called|used|run)\b"
                ),
                r"\b[a-z0-9]+_[a-z0-9_]+\s+(?:tool\s+)?(?:must|should|has to|needs to)\b",
                concat!(r"\bwhenever\b", near!(), r"\btool\b"),
                r"\b(?:instead of|rather than)\s+(?:using|calling|invoking)\b",
                r"\b(?:always|only)\s+(?:use|choose|prefer|call)\s+this tool\b",
                r"\bprefer this tool\b",
                r"\bmust be called (?:first|before)\b",
                r"\bwhenever you (?:run|execute|call|use|invoke)\b",
            ]),
        ),
    ]
});
