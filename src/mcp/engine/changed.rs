//! Which servers a reloaded configuration changed: the engine rebuilt over it says so in their
//! approval requests ([`super::EngineOptions::changed_servers`]).

use crate::mcp::config::ConfigSet;

/// The names whose effective definition differs between `old` and `new` (or that only `new`
/// has). Each name is looked up in `old` by binary search (its servers are sorted by name), so
/// a configuration of 100,000 servers is compared in one pass, not pairwise.
pub fn changed_servers(old: &ConfigSet, new: &ConfigSet) -> Vec<String> {
    new.servers
        .iter()
        .filter(|n| {
            old.server(&n.entry.name)
                .is_none_or(|o| o.entry.raw != n.entry.raw)
        })
        .map(|n| n.entry.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_servers_are_the_edited_and_the_added() {
        use crate::mcp::config::Layer;
        use crate::mcp::config::load::read_file;
        let dir = tempfile::tempdir().expect("tempdir");
        let config = |text: &str| {
            let file = dir.path().join("mcp.json");
            std::fs::write(&file, text).expect("write");
            ConfigSet::from_files(
                dir.path().to_path_buf(),
                vec![read_file(Layer::User, file, true)],
            )
        };
        let old = config(r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#);
        let new = config(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "z"}, "c": {"command": "w"}}}"#,
        );
        assert_eq!(changed_servers(&old, &new), ["b", "c"]);
        assert!(changed_servers(&new, &new).is_empty());
    }
}
