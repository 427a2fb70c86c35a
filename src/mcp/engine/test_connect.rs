//! "Test connect" of an edited, unsaved definition (the console's config editor): the
//! definition of one server is parsed from the buffer, checked against the trust rules,
//! connected once by the engine's one connect-once probe, described, and closed. Nothing is saved and no engine
//! is touched. The trust rule lives here, with the engine's other decisions, so that every
//! face that offers a test connect applies the same one.

use std::path::Path;

use super::probe::connect_once;
use crate::mcp::config::schema::parse_file;
use crate::mcp::config::{ConfigSet, Layer, ServerDef};
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::trust::{NotAdmitted, TrustStore};

/// The definition to try: `server`'s entry in the buffer (or its only entry), once the trust
/// rules allow it. A project file's definition runs only when the project is trusted and the
/// edited definition is exactly the trusted one: an unsaved change is, by definition, not
/// trusted yet.
pub(crate) fn definition(
    config: &ConfigSet,
    trust: &TrustStore,
    (path, layer, text): (&Path, Layer, &str),
    server: Option<&str>,
) -> Result<ServerDef, String> {
    let parsed = parse_file(text, path, layer);
    let entry = match server.and_then(|s| parsed.entries.iter().find(|e| e.name == s)) {
        Some(e) => e,
        None => match parsed.entries.as_slice() {
            [only] => only,
            [] => return Err("the buffer defines no server".to_owned()),
            _ => {
                return Err(format!(
                    "the buffer does not define `{}`; select the server to test first",
                    sanitize_capped(server.unwrap_or(""), 128)
                ));
            }
        },
    };
    let name = sanitize_capped(&entry.name, 128);
    let Some(def) = entry.def.clone() else {
        return Err(format!("`{name}` has errors; fix them first"));
    };
    let unchanged = config
        .servers
        .iter()
        .any(|s| *s.entry.source.file == *path && s.entry.raw == entry.raw);
    if let Err(why) = trust.state(config).admits(layer.is_project(), unchanged) {
        return Err(format!(
            "not connecting `{name}`: a project definition runs only once trusted, and \
             this one is {}; save it, then trust the project (t, then T)",
            if why == NotAdmitted::Edited {
                "edited"
            } else {
                "not trusted"
            }
        ));
    }
    Ok(def)
}

/// Connects `def` once ([`connect_once`]) and describes what answered.
pub(crate) async fn try_connect(def: ServerDef, file_dir: &Path) -> Result<String, String> {
    let lookup = |name: &str| std::env::var(name).ok();
    let answered = connect_once(&def, file_dir, &lookup)
        .await
        .map_err(|e| format!("test connect of `{}` failed: {e}", def.name))?;
    let what = format!(
        "test connect of `{}`: connected to {} {} (protocol {})",
        def.name,
        answered.name.as_deref().unwrap_or("an unnamed server"),
        answered.version.as_deref().unwrap_or(""),
        answered.protocol
    );
    Ok(sanitize_capped(&what, 300))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::LoadOptions;

    const PROJECT: &str = r#"{"mcpServers": {"p": {"command": "node", "args": ["s.js"]}}}"#;

    fn setup() -> (tempfile::TempDir, ConfigSet, TrustStore) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("cfg");
        let project = dir.path().join("proj");
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::write(project.join(".mcp.json"), PROJECT).expect("write");
        let config = ConfigSet::load(&LoadOptions {
            project_dir: project,
            config_home: Some(home.clone()),
            extra_files: Vec::new(),
        })
        .expect("load");
        let trust = TrustStore::load(TrustStore::default_path(&home));
        (dir, config, trust)
    }

    #[test]
    fn project_definitions_need_trust_and_no_edit() {
        let (_d, config, mut trust) = setup();
        let file = config.project_root.join(".mcp.json");
        let edited = PROJECT.replace("s.js", "other.js");
        let untrusted = definition(&config, &trust, (&file, Layer::Project, PROJECT), Some("p"));
        assert!(untrusted.is_err_and(|e| e.contains("not trusted")));
        trust.grant(&config).expect("grant");
        let ok = definition(&config, &trust, (&file, Layer::Project, PROJECT), Some("p"));
        assert_eq!(ok.expect("trusted and unchanged").name, "p");
        let changed = definition(&config, &trust, (&file, Layer::Project, &edited), Some("p"));
        assert!(changed.is_err_and(|e| e.contains("edited")));
    }

    /// Test-connect, from the editor and from the Hosts view alike, refuses a project server
    /// exactly when the engine holds it inert (so `status --live` and every operation refuse
    /// it too): never trusted, trusted, and changed since.
    #[test]
    fn test_connect_refuses_what_the_engine_refuses() {
        use crate::mcp::hosts::{HostEnv, HostId, convert::Places, probe::prepare, read};
        use crate::mcp::status::{ServerState, static_state};
        let (d, mut config, mut trust) = setup();
        let file = config.project_root.join(".mcp.json");
        let reload = || {
            ConfigSet::load(&LoadOptions {
                project_dir: d.path().join("proj"),
                config_home: Some(d.path().join("cfg")),
                extra_files: Vec::new(),
            })
            .expect("load")
        };
        let mut seen = Vec::new();
        for step in ["untrusted", "trusted", "changed"] {
            match step {
                "trusted" => trust.grant(&config).expect("grant"),
                "changed" => {
                    std::fs::write(&file, PROJECT.replace("s.js", "t.js")).expect("write");
                    config = reload();
                }
                _ => {}
            }
            let state = trust.state(&config);
            let text = std::fs::read_to_string(&file).expect("read");
            let inert = static_state(&config.servers[0], state) == ServerState::Inert;
            let editor = definition(&config, &trust, (&file, Layer::Project, &text), Some("p"));
            let env = HostEnv {
                home: Some(d.path().join("home")),
                config_home: Some(d.path().join("home/.config")),
                project: config.project_root.clone(),
                overrides: std::collections::BTreeMap::new(),
            };
            let report = read(HostId::ClaudeCode, &env);
            let places = Places {
                project: &env.project,
                home: env.home.as_deref(),
            };
            let hosts = prepare(
                HostId::ClaudeCode,
                report.server("p").expect("claude code reads .mcp.json"),
                state,
                &places,
                &mut |_| None,
            );
            assert_eq!(editor.is_err(), inert, "{step}: editor {:?}", editor.err());
            assert_eq!(hosts.is_err(), inert, "{step}: hosts");
            seen.push(inert);
        }
        assert_eq!(seen, [true, false, true]);
    }

    #[test]
    fn user_definitions_are_tried_as_edited() {
        let (d, config, trust) = setup();
        let file = d.path().join("cfg/mcpdeck/mcp.json");
        let text = r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#;
        let b = definition(&config, &trust, (&file, Layer::User, text), Some("b"));
        assert_eq!(b.expect("b").name, "b");
        let unknown = definition(&config, &trust, (&file, Layer::User, text), Some("zz"));
        assert!(unknown.is_err_and(|e| e.contains("does not define")));
        let broken = definition(
            &config,
            &trust,
            (
                &file,
                Layer::User,
                r#"{"mcpServers": {"a": {"command": 1}}}"#,
            ),
            Some("a"),
        );
        assert!(broken.is_err_and(|e| e.contains("errors")));
    }
}
