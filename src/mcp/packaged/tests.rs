//! Registry rules: collisions with file configuration, idempotent and conflicting
//! registration, facade ordering, closed facade schemas and fixed call targets.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::*;
use crate::mcp::config::load::ConfigFile;
use crate::mcp::config::schema::parse_file;
use crate::mcp::config::{ConfigSet, Layer, Transport};
use crate::mcp::trust::fingerprint;

const EXE: &str = "/opt/mcpdeck/bin/mcpdeck";

fn file(layer: Layer, path: &str, text: &str) -> ConfigFile {
    let path = PathBuf::from(path);
    let parsed = parse_file(text, &path, layer);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    ConfigFile {
        layer,
        path,
        present: true,
        diagnostics: Vec::new(),
        entries: parsed.entries,
        project_sandbox: parsed.project_sandbox,
    }
}

fn config(files: Vec<ConfigFile>) -> ConfigSet {
    ConfigSet::from_files(PathBuf::from("/project"), files)
}

fn tool_server() -> PackagedServer {
    PackagedServer {
        name: "tools".into(),
        command: "/usr/bin/tool-server".into(),
        args: vec!["--stdio".into()],
        env: BTreeMap::from([("TOOL_MODE".to_owned(), "read-only".to_owned())]),
    }
}

fn fields(v: Value) -> Map<String, Value> {
    let Value::Object(map) = v else {
        panic!("not an object: {v}")
    };
    map
}

fn search_facade() -> ToolFacade {
    ToolFacade {
        name: "search".into(),
        description: "Search the tool server".into(),
        server: "tools".into(),
        operations: vec![
            FacadeOperation {
                name: "find".into(),
                remote_tool: "grep".into(),
                fields: fields(json!({
                    "pattern": {"type": "string", "minLength": 1},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                })),
                required: vec!["pattern".into()],
            },
            FacadeOperation {
                name: "count".into(),
                remote_tool: "count_matches".into(),
                fields: fields(json!({"pattern": {"type": "string"}})),
                required: vec!["pattern".into()],
            },
        ],
    }
}

fn registry() -> PackagedRegistry {
    let mut registry = PackagedRegistry::new();
    registry
        .register_server(tool_server(), Presence::Always)
        .unwrap();
    registry.register_facade(search_facade()).unwrap();
    registry
}

#[test]
fn packaged_server_wins_a_name_collision_and_the_file_entry_is_shadowed() {
    let user = file(
        Layer::User,
        "/home/u/.config/mcpdeck/mcp.json",
        r#"{"mcpServers": {"demo": {"command": "my-demo"}, "other": {"command": "x"}}}"#,
    );
    let set = config(vec![user]);
    let mut registry = PackagedRegistry::new();
    registry
        .register_server(demo_server(), Presence::Demo)
        .unwrap();
    let set = set.with_packaged(registry.config_entries(true, Ok(Path::new(EXE))));

    let names: Vec<&str> = set.servers.iter().map(|s| s.entry.name.as_str()).collect();
    assert_eq!(names, ["demo", "other"]);
    let demo = set.server("demo").unwrap();
    assert_eq!(demo.entry.source.layer, Layer::Packaged);
    assert_eq!(&*demo.entry.source.file, Path::new(PACKAGED_SOURCE));
    assert_eq!(demo.shadowed.len(), 1);
    assert_eq!(demo.shadowed[0].layer, Layer::User);
    let def = demo.entry.def.as_ref().unwrap();
    let Transport::Stdio(stdio) = &def.transport else {
        panic!("stdio")
    };
    assert_eq!(stdio.command, EXE);
    assert_eq!(stdio.args, ["demo-server"]);
    assert_eq!(demo.entry.raw.value()["command"], EXE);
    assert_eq!(set.server("other").unwrap().entry.source.layer, Layer::User);
}

#[test]
fn packaged_entries_carry_their_explicit_env_literally() {
    let mut registry = PackagedRegistry::new();
    let mut server = tool_server();
    server.env.insert("ODD".into(), "a ${NOT_A_REF} $x".into());
    registry.register_server(server, Presence::Always).unwrap();
    let entries = registry.config_entries(false, Ok(Path::new(EXE)));
    let def = entries[0].def.as_ref().unwrap();
    assert!(
        def.references().is_empty(),
        "packaged env never references the environment"
    );
    let Transport::Stdio(stdio) = &def.transport else {
        panic!("stdio")
    };
    let resolved = stdio.env["ODD"].resolve(&|_| Some("LEAK".into())).unwrap();
    assert_eq!(resolved.value, "a ${NOT_A_REF} $x");
    assert_eq!(entries[0].raw.value()["env"]["TOOL_MODE"], "read-only");
}

#[test]
fn demo_is_present_only_with_the_flag_or_when_nothing_is_configured() {
    let registry = PackagedRegistry::builtin().unwrap();
    let exe = Ok(Path::new(EXE));
    let empty = config(vec![file(Layer::User, "/u.json", r#"{"mcpServers": {}}"#)]);
    assert!(!empty.defines_any_server());
    let entries = registry.config_entries(!empty.defines_any_server(), exe);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].name, DEMO_SERVER);

    let some = config(vec![file(
        Layer::User,
        "/u.json",
        r#"{"mcpServers": {"a": {"command": "a"}}}"#,
    )]);
    let layered = registry.layer_onto(some.clone(), false);
    assert!(layered.server(DEMO_SERVER).is_none());
    let layered = registry.layer_onto(some, true);
    assert!(layered.server(DEMO_SERVER).is_some());
    let layered = registry.layer_onto(empty, false);
    assert!(layered.server(DEMO_SERVER).is_some());
}

#[test]
fn packaged_entries_never_count_as_project_configuration() {
    let project = file(
        Layer::Project,
        "/project/.mcp.json",
        r#"{"mcpServers": {"p": {"command": "p"}}}"#,
    );
    let set = config(vec![project]);
    let before = fingerprint(&set);
    let registry = PackagedRegistry::builtin().unwrap();
    let layered = registry.layer_onto(set, true);
    assert!(layered.server(DEMO_SERVER).is_some());
    assert_eq!(fingerprint(&layered), before);
    assert_eq!(layered.project_entries().count(), 1);
    assert!(layered.files.iter().all(|f| f.layer != Layer::Packaged));
}

#[test]
fn an_unknown_executable_path_makes_self_servers_invalid_not_missing() {
    let registry = PackagedRegistry::builtin().unwrap();
    let entries = registry.config_entries(true, Err("no /proc"));
    assert_eq!(entries.len(), 1);
    assert!(entries[0].def.is_none());
    assert!(entries[0].diagnostics[0].message.contains("no /proc"));
}

#[test]
fn identical_registration_is_idempotent() {
    let mut registry = registry();
    registry
        .register_server(tool_server(), Presence::Always)
        .unwrap();
    registry.register_facade(search_facade()).unwrap();
    assert_eq!(registry.servers().count(), 1);
    assert_eq!(registry.facades().count(), 1);
}

#[test]
fn a_conflicting_duplicate_name_is_an_error() {
    let mut registry = registry();
    let mut other = tool_server();
    other.args.push("--write".into());
    assert_eq!(
        registry.register_server(other, Presence::Always),
        Err(PackagedError::Conflict {
            kind: "server",
            name: "tools".into()
        })
    );
    // Same descriptor, different presence: still a different registration.
    assert!(matches!(
        registry.register_server(tool_server(), Presence::Demo),
        Err(PackagedError::Conflict { .. })
    ));
    // A self-server may not take an executable's name either.
    let same_name = PackagedSelfServer {
        name: "tools".into(),
        subcommand_args: vec!["demo-server".into()],
        sandbox: None,
    };
    assert!(matches!(
        registry.register_server(same_name, Presence::Always),
        Err(PackagedError::Conflict { .. })
    ));
    let mut facade = search_facade();
    facade.operations[0].remote_tool = "rm".into();
    assert_eq!(
        registry.register_facade(facade),
        Err(PackagedError::Conflict {
            kind: "facade",
            name: "search".into()
        })
    );
    // The original registrations are untouched.
    let call = registry
        .call("search", "find", &json!({"pattern": "x"}))
        .unwrap();
    assert_eq!(call.remote_tool, "grep");
}

#[test]
fn a_facade_before_its_server_is_an_error() {
    let mut registry = PackagedRegistry::new();
    assert_eq!(
        registry.register_facade(search_facade()),
        Err(PackagedError::UnknownServer {
            facade: "search".into(),
            server: "tools".into()
        })
    );
    registry
        .register_server(tool_server(), Presence::Always)
        .unwrap();
    registry.register_facade(search_facade()).unwrap();
}

#[test]
fn malformed_descriptors_and_facades_are_refused() {
    let mut registry = registry();
    let mut bad = tool_server();
    bad.name = "bad name".into();
    assert!(matches!(
        registry.register_server(bad, Presence::Always),
        Err(PackagedError::InvalidName { .. })
    ));
    let mut bad = tool_server();
    bad.name = "empty".into();
    bad.command = " ".into();
    assert!(matches!(
        registry.register_server(bad, Presence::Always),
        Err(PackagedError::InvalidServer { .. })
    ));
    let mut bad = tool_server();
    bad.name = "envy".into();
    bad.env.insert("NOT-A-NAME".into(), "x".into());
    assert!(matches!(
        registry.register_server(bad, Presence::Always),
        Err(PackagedError::InvalidServer { .. })
    ));
    let no_subcommand = PackagedSelfServer {
        name: "me".into(),
        subcommand_args: vec![],
        sandbox: None,
    };
    assert!(
        registry
            .register_server(no_subcommand, Presence::Always)
            .is_err()
    );

    let mut facade = search_facade();
    facade.name = "f1".into();
    facade.operations[0].required.push("missing".into());
    assert!(matches!(
        registry.register_facade(facade),
        Err(PackagedError::InvalidFacade { .. })
    ));
    let mut facade = search_facade();
    facade.name = "f2".into();
    facade.operations[1].name = "find".into();
    assert!(matches!(
        registry.register_facade(facade),
        Err(PackagedError::InvalidFacade { .. })
    ));
    let mut facade = search_facade();
    facade.name = "f3".into();
    facade.operations[0]
        .fields
        .insert("n".into(), json!({"type": "no-such-type"}));
    assert!(matches!(
        registry.register_facade(facade),
        Err(PackagedError::InvalidFacade { .. })
    ));
    let mut facade = search_facade();
    facade.name = "f4".into();
    facade.operations.clear();
    assert!(matches!(
        registry.register_facade(facade),
        Err(PackagedError::InvalidFacade { .. })
    ));
    assert_eq!(registry.facades().count(), 1);
}

#[test]
fn a_valid_facade_call_maps_to_exactly_its_server_and_tool() {
    let registry = registry();
    let call = registry
        .call("search", "find", &json!({"pattern": "fn main", "limit": 5}))
        .unwrap();
    assert_eq!(
        call,
        FacadeCall {
            server: "tools".into(),
            remote_tool: "grep".into(),
            arguments: fields(json!({"pattern": "fn main", "limit": 5})),
        }
    );
    let count = registry
        .call("search", "count", &json!({"pattern": "x"}))
        .unwrap();
    assert_eq!(
        (count.server.as_str(), count.remote_tool.as_str()),
        ("tools", "count_matches")
    );
}

#[test]
fn a_facade_rejects_unknown_fields_and_out_of_schema_arguments() {
    let registry = registry();
    let invalid = |args: Value| {
        let result = registry.call("search", "find", &args);
        assert!(
            matches!(result, Err(PackagedError::InvalidArguments { .. })),
            "{args} was accepted: {result:?}"
        );
    };
    // Callers cannot smuggle a target, a tool, a command, headers or env through extra fields.
    for extra in [
        "server",
        "tool",
        "remote_tool",
        "command",
        "headers",
        "env",
        "name",
    ] {
        invalid(json!({"pattern": "x", extra: "other"}));
    }
    invalid(json!({}));
    invalid(json!({"pattern": ""}));
    invalid(json!({"pattern": 7}));
    invalid(json!({"pattern": "x", "limit": 0}));
    invalid(json!({"pattern": "x", "limit": 101}));
    invalid(json!({"pattern": "x", "limit": 1.5}));
    invalid(json!(["pattern", "x"]));
    invalid(json!(null));
}

#[test]
fn a_facade_cannot_reach_another_tool_or_server() {
    let mut registry = registry();
    let other = PackagedServer {
        name: "other".into(),
        command: "/usr/bin/other".into(),
        args: vec![],
        env: BTreeMap::new(),
    };
    registry.register_server(other, Presence::Always).unwrap();
    // Operation names are looked up only within the named facade: a remote tool name, or an
    // operation name of nothing, is not an operation.
    for operation in ["grep", "count_matches", "delete", ""] {
        assert!(matches!(
            registry.call("search", operation, &json!({"pattern": "x"})),
            Err(PackagedError::UnknownOperation { .. })
        ));
    }
    // A server name is not a facade.
    assert_eq!(
        registry.call("other", "find", &json!({"pattern": "x"})),
        Err(PackagedError::UnknownFacade("other".into()))
    );
    // Whatever the arguments, every accepted call goes to the facade's own server.
    let call = registry
        .call("search", "find", &json!({"pattern": "other"}))
        .unwrap();
    assert_eq!(call.server, "tools");
}

#[test]
fn the_operation_schema_is_closed() {
    let op = &search_facade().operations[0];
    let schema = op.input_schema();
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["pattern"]));
}

#[test]
fn the_whole_shadow_chain_is_kept_highest_first() {
    let user = file(
        Layer::User,
        "/u.json",
        r#"{"mcpServers": {"demo": {"command": "u"}}}"#,
    );
    let cli = file(
        Layer::CommandLine,
        "/c.json",
        r#"{"mcpServers": {"demo": {"command": "c"}}}"#,
    );
    let registry = PackagedRegistry::builtin().unwrap();
    let set =
        config(vec![user, cli]).with_packaged(registry.config_entries(true, Ok(Path::new(EXE))));
    let demo = set.server(DEMO_SERVER).unwrap();
    let layers: Vec<Layer> = demo.shadowed.iter().map(|s| s.layer).collect();
    assert_eq!(layers, [Layer::CommandLine, Layer::User]);
    assert_eq!(set.servers.len(), 1);
}
