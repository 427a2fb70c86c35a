//! The CLI's answers to a server's requests: roots come from the engine; elicitation follows
//! `--elicit` (`ask` prompts field by field on the controlling terminal, `accept-defaults`
//! accepts the schema's defaults when every required field has one, `decline` declines); a
//! sampling request gets `--sampling-reply`'s text, or is asked on the terminal, or is rejected.
//! Every request and its answer is noted on stderr. Text from servers arrives sanitised.

use std::fmt::Write as _;
use std::io::{BufRead as _, Write as _};
use std::sync::{Arc, Mutex};

use crate::mcp::pending::Pending;

use crate::mcp::client::{
    Answer, ClientRequests, ElicitAnswer, ElicitKind, ElicitationAsk, FieldKind, Form,
    SamplingAnswer, SamplingAsk,
};

/// `--elicit` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ElicitMode {
    /// Prompt field by field on the terminal.
    Ask,
    /// Accept with the schema's defaults when every required field has one; else decline.
    AcceptDefaults,
    /// Decline every request.
    Decline,
}

/// The CLI's flags for the client side of MCP (global: they apply to any command that
/// connects).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ClientFlags {
    /// A root to offer servers instead of the project directory; repeatable.
    #[arg(long = "root", global = true, value_name = "PATH", help_heading = super::commands::GLOBAL)]
    pub roots: Vec<std::path::PathBuf>,
    /// How to answer a server's elicitation (default: ask on a terminal, else decline).
    #[arg(long, global = true, value_enum, value_name = "MODE", help_heading = super::commands::GLOBAL)]
    pub elicit: Option<ElicitMode>,
    /// Answer every sampling request with this text (model `mcpdeck-operator`).
    #[arg(long, global = true, value_name = "TEXT", help_heading = super::commands::GLOBAL)]
    pub sampling_reply: Option<String>,
    /// Ask servers that declare logging for this level (debug, info, notice, warning, error,
    /// critical, alert, emergency) and print their log lines on stderr.
    #[arg(
        long,
        global = true,
        value_name = "LEVEL",
        value_parser = parse_log_level,
        help_heading = super::commands::GLOBAL
    )]
    pub log_level: Option<String>,
    /// How long a tool call run as a task is followed before it is cancelled, in milliseconds
    /// (instead of each server's `taskTimeoutMs`, default 600000; a task's shorter `ttl` wins).
    #[arg(long, global = true, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000), help_heading = super::commands::GLOBAL)]
    pub task_timeout: Option<u64>,
}

fn parse_log_level(text: &str) -> Result<String, String> {
    crate::mcp::client::parse_level(text)
        .map(|_| text.to_ascii_lowercase())
        .ok_or_else(|| {
            "one of debug, info, notice, warning, error, critical, alert, emergency".to_owned()
        })
}

/// The CLI broker.
pub struct TtyClient {
    elicit: ElicitMode,
    sampling_reply: Option<String>,
    terminal: bool,
    /// One conversation on the terminal at a time; notes wait until it ends.
    tty: Arc<Conversation>,
}

/// The terminal's one conversation at a time, and the notes that arrive during one: printed
/// when it ends, so that a notice never lands in the middle of a question.
#[derive(Debug, Default)]
struct Conversation {
    turn: Mutex<()>,
    /// `Some` while a conversation is on: the notes held back, in order.
    held: Mutex<Option<Vec<String>>>,
}

impl Conversation {
    fn held(&self) -> std::sync::MutexGuard<'_, Option<Vec<String>>> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A conversation starts: notes are held from now on.
    fn begin(&self) {
        *self.held() = Some(Vec::new());
    }

    /// `text` to print now, or `None` when it is held for the end of the conversation.
    fn note(&self, text: String) -> Option<String> {
        match self.held().as_mut() {
            Some(queue) => {
                queue.push(text);
                None
            }
            None => Some(text),
        }
    }

    /// The conversation ended: the notes held meanwhile, to print now.
    fn end(&self) -> Vec<String> {
        self.held().take().unwrap_or_default()
    }
}

impl TtyClient {
    /// The broker for these flags; `ask` is the default only when stdin is a terminal.
    pub fn new(flags: &ClientFlags) -> Self {
        use std::io::IsTerminal as _;
        let terminal = std::io::stdin().is_terminal() && open_tty().is_ok();
        let elicit = flags.elicit.unwrap_or(if terminal {
            ElicitMode::Ask
        } else {
            ElicitMode::Decline
        });
        Self {
            elicit,
            sampling_reply: flags.sampling_reply.clone(),
            terminal,
            tty: Arc::default(),
        }
    }
}

fn open_tty() -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
}

/// Runs `f` on a thread with the terminal (one at a time) and returns its answer.
fn on_tty<T: Clone + Send + Sync + 'static>(
    conversation: &Arc<Conversation>,
    fallback: T,
    f: impl FnOnce(&mut Tty) -> std::io::Result<T> + Send + 'static,
) -> Answer<T> {
    let (pending, reply) = Pending::new(0, None);
    let conversation = conversation.clone();
    std::thread::spawn(move || {
        let _turn = conversation
            .turn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        conversation.begin();
        let answer = crate::cli::progress::pause(|| Tty::open().and_then(|mut tty| f(&mut tty)));
        for text in conversation.end() {
            crate::cli::output::print_error(&text);
        }
        // Unanswered (the terminal failed), the reply is dropped: the fallback.
        if let Ok(answer) = answer {
            let _ = reply.answer(answer);
        }
    });
    Box::pin(async move { pending.wait(std::future::pending()).await.or(fallback) })
}

/// The controlling terminal, for questions and answers.
struct Tty {
    out: std::fs::File,
    input: std::io::BufReader<std::fs::File>,
}

impl Tty {
    fn open() -> std::io::Result<Self> {
        let tty = open_tty()?;
        Ok(Self {
            out: tty.try_clone()?,
            input: std::io::BufReader::new(tty),
        })
    }

    fn say(&mut self, text: &str) -> std::io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }

    fn ask(&mut self, question: &str) -> std::io::Result<String> {
        self.say(question)?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        Ok(line.trim_end_matches(['\n', '\r']).to_owned())
    }
}

impl ClientRequests for TtyClient {
    fn elicit(&self, ask: ElicitationAsk) -> Answer<ElicitAnswer> {
        match (self.elicit, &ask.kind) {
            (ElicitMode::Decline, _) => Box::pin(async { ElicitAnswer::Decline }),
            (ElicitMode::AcceptDefaults, ElicitKind::Form(form)) => {
                let answer = form
                    .defaults()
                    .map_or(ElicitAnswer::Decline, ElicitAnswer::Accept);
                Box::pin(async move { answer })
            }
            (ElicitMode::AcceptDefaults, ElicitKind::Url { .. }) => {
                Box::pin(async { ElicitAnswer::Decline })
            }
            (ElicitMode::Ask, _) if !self.terminal => Box::pin(async { ElicitAnswer::Decline }),
            (ElicitMode::Ask, _) => on_tty(&self.tty, ElicitAnswer::Cancel, move |tty| {
                ask_elicit(tty, &ask)
            }),
        }
    }

    fn sample(&self, ask: SamplingAsk) -> Answer<SamplingAnswer> {
        if let Some(text) = &self.sampling_reply {
            let answer = SamplingAnswer::Reply {
                text: text.clone(),
                stop_reason: "endTurn".to_owned(),
            };
            return Box::pin(async move { answer });
        }
        if !self.terminal {
            return Box::pin(async { SamplingAnswer::Reject });
        }
        on_tty(&self.tty, SamplingAnswer::Reject, move |tty| {
            ask_sampling(tty, &ask)
        })
    }

    fn note(&self, server: &str, text: &str) {
        if let Some(text) = self.tty.note(format!("server `{server}`: {text}")) {
            crate::cli::output::print_error(&text);
        }
    }
}

fn ask_elicit(tty: &mut Tty, ask: &ElicitationAsk) -> std::io::Result<ElicitAnswer> {
    tty.say(&format!(
        "mcpdeck: server `{}` asks: {}\n",
        ask.server, ask.message
    ))?;
    match &ask.kind {
        ElicitKind::Url { url, origin, .. } => {
            tty.say(&format!(
                "  URL: {url}\n  origin: {}\n  (mcpdeck does not open it; open it yourself if you trust it)\n",
                if origin.is_empty() { "unknown" } else { origin }
            ))?;
            let choice = tty.ask("  [y] accept  [d] decline  [anything else] cancel: ")?;
            Ok(match choice.trim() {
                "y" | "Y" | "yes" => ElicitAnswer::Accept(serde_json::Map::new()),
                "d" | "D" => ElicitAnswer::Decline,
                _ => ElicitAnswer::Cancel,
            })
        }
        ElicitKind::Form(form) => {
            let choice =
                tty.ask("  [y] fill in the form  [d] decline  [anything else] cancel: ")?;
            match choice.trim() {
                "y" | "Y" | "yes" => fill_form(tty, form).map(ElicitAnswer::Accept),
                "d" | "D" => Ok(ElicitAnswer::Decline),
                _ => Ok(ElicitAnswer::Cancel),
            }
        }
    }
}

/// The order a form's fields are asked in: the required ones first, each group in the
/// schema's order, so an operator who stops early has already given what the server needs.
fn asking_order(form: &Form) -> impl Iterator<Item = &crate::mcp::client::FormField> {
    let required = form.fields.iter().filter(|f| f.required);
    required.chain(form.fields.iter().filter(|f| !f.required))
}

fn fill_form(
    tty: &mut Tty,
    form: &Form,
) -> std::io::Result<serde_json::Map<String, serde_json::Value>> {
    let mut content = serde_json::Map::new();
    for field in asking_order(form) {
        let mut question = format!("  {}", field.title);
        if field.required {
            question.push_str(" (required)");
        }
        if !field.description.is_empty() {
            let _ = write!(question, " — {}", field.description);
        }
        match &field.kind {
            FieldKind::Single(options) | FieldKind::Multi { options, .. } => {
                for (i, o) in options.iter().enumerate() {
                    let _ = write!(question, "\n    {}) {}", i + 1, o.label);
                }
                if matches!(field.kind, FieldKind::Multi { .. }) {
                    question.push_str("\n    (numbers or values, comma-separated)");
                }
            }
            FieldKind::Boolean => question.push_str(" [yes/no]"),
            FieldKind::Number { integer, .. } => {
                question.push_str(if *integer {
                    " [whole number]"
                } else {
                    " [number]"
                });
            }
            FieldKind::Text {
                format: Some(f), ..
            } => {
                let _ = write!(question, " [{f}]");
            }
            FieldKind::Text { .. } => {}
        }
        if let Some(default) = &field.default {
            let _ = write!(question, "\n    default: {default}");
        }
        question.push_str("\n  > ");
        loop {
            let input = tty.ask(&question)?;
            match field.parse_input(&input) {
                Ok(Some(value)) => {
                    content.insert(field.key.clone(), value);
                    break;
                }
                Ok(None) => match &field.default {
                    Some(default) => {
                        content.insert(field.key.clone(), default.clone());
                        break;
                    }
                    None if field.required => tty.say("    this field is required\n")?,
                    None => break,
                },
                Err(problem) => tty.say(&format!("    {problem}\n"))?,
            }
        }
    }
    Ok(content)
}

fn ask_sampling(tty: &mut Tty, ask: &SamplingAsk) -> std::io::Result<SamplingAnswer> {
    let mut text = format!(
        "mcpdeck: server `{}` asks for a model completion (max {} tokens); you answer as the model.\n",
        ask.server, ask.max_tokens
    );
    if let Some(system) = &ask.system_prompt {
        let _ = writeln!(text, "  system: {system}");
    }
    if let Some(prefs) = &ask.model_preferences {
        let _ = writeln!(text, "  model preferences: {prefs}");
    }
    if !ask.tools.is_empty() {
        let _ = writeln!(text, "  tools offered: {}", ask.tools.join(", "));
    }
    for (role, message) in &ask.messages {
        let _ = writeln!(text, "  {role}: {message}");
    }
    tty.say(&text)?;
    let reply = tty.ask("  your reply (one line; empty rejects): ")?;
    Ok(if reply.trim().is_empty() {
        SamplingAnswer::Reject
    } else {
        SamplingAnswer::Reply {
            text: reply,
            stop_reason: "endTurn".to_owned(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{Conversation, asking_order};
    use crate::mcp::client::Form;

    #[test]
    fn a_form_asks_its_required_fields_first_each_in_schema_order() {
        let form = Form::from_schema(&serde_json::json!({
            "type": "object",
            "properties": {
                "nick": {"type": "string"},
                "name": {"type": "string"},
                "age": {"type": "integer"},
                "email": {"type": "string"}
            },
            "required": ["email", "name"]
        }));
        let order: Vec<&str> = asking_order(&form).map(|f| f.name.as_str()).collect();
        // The schema's order is its object's, whatever map serde_json keeps.
        let in_schema = |required: bool| {
            form.fields
                .iter()
                .filter(move |f| f.required == required)
                .map(|f| f.name.as_str())
        };
        let expected: Vec<&str> = in_schema(true).chain(in_schema(false)).collect();
        assert_eq!(order, expected);
        assert_eq!(order.len(), 4);
        let mut first_two = order[..2].to_vec();
        first_two.sort_unstable();
        assert_eq!(first_two, ["email", "name"]);
    }

    #[test]
    fn notes_during_a_conversation_wait_for_its_end_in_order() {
        let c = Conversation::default();
        assert_eq!(c.note("before".into()), Some("before".to_owned()));
        c.begin();
        assert_eq!(c.note("first".into()), None);
        assert_eq!(c.note("second".into()), None);
        assert_eq!(c.end(), vec!["first".to_owned(), "second".to_owned()]);
        assert_eq!(c.note("after".into()), Some("after".to_owned()));
        assert!(c.end().is_empty());
    }
}
