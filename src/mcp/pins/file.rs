//! A pin file to commit (`mcpdeck pins export`, default `.mcpdeck/pins.json` in the project):
//! the accepted pins of each server by name, so `mcpdeck pins check` on a fresh CI runner with
//! no state still sees a change.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Pin;

/// The committed file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinFile {
    /// Always 1.
    pub version: u32,
    /// Each server's pins, by configured name.
    pub servers: BTreeMap<String, PinFileServer>,
}

/// One server in a pin file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinFileServer {
    /// Its pins by entry key (`tool:NAME`, `prompt:NAME`, `resourceTemplate:NAME`, `server`).
    pub pins: BTreeMap<String, Pin>,
}

impl PinFile {
    /// Reads a pin file.
    pub fn read(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the pin file {}: {e}", path.display()))?;
        let file: Self = serde_json::from_str(&text)
            .map_err(|e| format!("the pin file {} is not valid: {e}", path.display()))?;
        if file.version != 1 {
            return Err(format!(
                "the pin file {} has unknown version {}",
                path.display(),
                file.version
            ));
        }
        Ok(file)
    }

    /// The file's text: pretty JSON, keys sorted, a final newline (stable for diffs).
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}
