//! The keymap's contexts: where a binding applies, the name of each context's table in
//! `keys.toml` and its heading in the help, in the help's order.

/// Where a binding applies. Global bindings apply wherever no text is being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ctx {
    /// Everywhere outside text entry and modals.
    Global,
    /// The servers pane has focus.
    Servers,
    /// Any tab's list has focus (bindings common to every tab).
    List,
    /// The Tools tab's list has focus.
    ToolsTab,
    /// The Resources tab's list has focus.
    ResourcesTab,
    /// The Prompts tab's list has focus.
    PromptsTab,
    /// The Log tab has focus.
    LogTab,
    /// The Config tab has focus.
    ConfigTab,
    /// A tool's detail view.
    Detail,
    /// The call form or raw JSON editor.
    Form,
    /// A call is running.
    Running,
    /// A result is shown.
    Result,
    /// A global view (spills, doctor, trust, help).
    View,
    /// The trust view.
    TrustView,
    /// The spills view and pager.
    SpillsView,
    /// The config editor.
    Editor,
    /// The workspace side panel has focus (keys type into its form).
    Side,
    /// The agent sessions view.
    AgentsView,
    /// An approval is in front (it takes every key).
    Approval,
    /// The approval in front shows all its arguments in the text viewer.
    ApprovalArguments,
    /// The policy view (the user's policy file).
    PolicyView,
    /// The config doctor.
    DoctorView,
    /// A server's elicitation form is in front (keys type into its fields).
    Elicitation,
    /// A server's URL elicitation is in front.
    ElicitUrl,
    /// A server's sampling request is in front (keys type into the reply).
    Sampling,
    /// The Hosts view (other agent hosts' configurations).
    HostsView,
    /// The Tasks view (a server's tasks).
    TasksView,
    /// The call form's suggestion list is open (completion).
    Completion,
    /// The Roots view (a server's roots for the session).
    RootsView,
    /// A result's list of resource links is open.
    ResultLinks,
    /// The spill pager (a window of a spill file in the text viewer).
    Pager,
    /// The box with the keys of the component in front (`F1` in the editor and the form).
    KeyHelp,
    /// The Skills tab has focus.
    SkillsTab,
    /// The tools search is typed (characters type into the query).
    ToolSearch,
    /// A list's filter is typed (characters type into the query).
    Filter,
    /// The result viewer's search is typed (characters type into the query).
    TextSearch,
}

/// Every context, in the order the help overlay lists them.
pub const ALL_CTX: [Ctx; 36] = [
    Ctx::Global,
    Ctx::Servers,
    Ctx::List,
    Ctx::ToolsTab,
    Ctx::ResourcesTab,
    Ctx::PromptsTab,
    Ctx::LogTab,
    Ctx::ConfigTab,
    Ctx::Detail,
    Ctx::Form,
    Ctx::Completion,
    Ctx::Running,
    Ctx::Result,
    Ctx::ResultLinks,
    Ctx::View,
    Ctx::TrustView,
    Ctx::SpillsView,
    Ctx::Pager,
    Ctx::AgentsView,
    Ctx::Editor,
    Ctx::Side,
    Ctx::Approval,
    Ctx::ApprovalArguments,
    Ctx::PolicyView,
    Ctx::DoctorView,
    Ctx::Elicitation,
    Ctx::ElicitUrl,
    Ctx::Sampling,
    Ctx::HostsView,
    Ctx::TasksView,
    Ctx::RootsView,
    Ctx::KeyHelp,
    Ctx::SkillsTab,
    Ctx::ToolSearch,
    Ctx::Filter,
    Ctx::TextSearch,
];

/// A context's name in a keymap file and its heading in the help overlay.
fn names(ctx: Ctx) -> (&'static str, &'static str) {
    match ctx {
        Ctx::Global => ("global", "everywhere"),
        Ctx::Servers => ("servers", "servers"),
        Ctx::List => ("list", "lists"),
        Ctx::ToolsTab => ("tools", "tools"),
        Ctx::ResourcesTab => ("resources", "resources"),
        Ctx::PromptsTab => ("prompts", "prompts"),
        Ctx::LogTab => ("log", "log"),
        Ctx::ConfigTab => ("config", "config"),
        Ctx::Detail => ("detail", "tool detail"),
        Ctx::Form => ("form", "call form"),
        Ctx::Running => ("running", "running"),
        Ctx::Result => ("result", "result"),
        Ctx::View => ("view", "views"),
        Ctx::TrustView => ("trust_view", "trust view"),
        Ctx::SpillsView => ("spills_view", "spills view"),
        Ctx::Editor => ("editor", "config editor"),
        Ctx::Side => ("side", "workspace panel"),
        Ctx::AgentsView => ("agents_view", "agents view"),
        Ctx::Approval => ("approval", "approval"),
        Ctx::ApprovalArguments => ("approval_arguments", "approval arguments"),
        Ctx::PolicyView => ("policy_view", "policy view"),
        Ctx::DoctorView => ("doctor_view", "config doctor"),
        Ctx::Elicitation => ("elicitation", "asks: form"),
        Ctx::ElicitUrl => ("elicitation_url", "asks: URL"),
        Ctx::Sampling => ("sampling", "asks: sampling"),
        Ctx::HostsView => ("hosts_view", "hosts view"),
        Ctx::TasksView => ("tasks_view", "tasks view"),
        Ctx::Completion => ("completion", "completions"),
        Ctx::ResultLinks => ("result_links", "resource links"),
        Ctx::RootsView => ("roots_view", "roots view"),
        Ctx::Pager => ("pager", "spill pager"),
        Ctx::KeyHelp => ("key_help", "keys of a view"),
        Ctx::SkillsTab => ("skills", "skills"),
        Ctx::ToolSearch => ("tool_search", "tools search"),
        Ctx::Filter => ("filter", "list filter"),
        Ctx::TextSearch => ("text_search", "text search"),
    }
}

/// A context's name in a keymap file.
pub fn ctx_key(ctx: Ctx) -> &'static str {
    names(ctx).0
}

/// A context's name in the help overlay.
pub fn ctx_name(ctx: Ctx) -> &'static str {
    names(ctx).1
}
