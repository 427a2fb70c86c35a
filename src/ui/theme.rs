//! Colours by role (`assets/theme.toml`, embedded; a user's `theme.toml` overrides it). Render
//! functions ask [`theme()`] for a role, never for a colour by name, so a light terminal or
//! `NO_COLOR` changes every view at once. The console installs the theme once before the first
//! frame; until then (and in tests) the embedded dark variant is used.

use std::str::FromStr;
use std::sync::OnceLock;

use ratatui::style::{Color, Style};
use ratatui::text::Line;

/// The embedded default theme.
pub const DEFAULT_THEME: &str = include_str!("../../assets/theme.toml");

/// The colour of each role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Titles, keys, query bars.
    pub accent: Color,
    /// Names in lists.
    pub text: Color,
    /// Descriptions.
    pub muted: Color,
    /// Hints, secondary details, empty states.
    pub dim: Color,
    /// Connected, allowed, done.
    pub ok: Color,
    /// Pending, changed, risks.
    pub warn: Color,
    /// Failures, denials.
    pub error: Color,
    /// Kinds and spills.
    pub kind: Color,
    /// Links to open.
    pub link: Color,
    /// Text on a coloured background.
    pub on_accent: Color,
}

const ROLES: [&str; 10] = [
    "accent",
    "text",
    "muted",
    "dim",
    "ok",
    "warn",
    "error",
    "kind",
    "link",
    "on_accent",
];

impl Theme {
    /// Every role the terminal's own colour (what `NO_COLOR` asks for).
    pub const PLAIN: Self = Self {
        accent: Color::Reset,
        text: Color::Reset,
        muted: Color::Reset,
        dim: Color::Reset,
        ok: Color::Reset,
        warn: Color::Reset,
        error: Color::Reset,
        kind: Color::Reset,
        link: Color::Reset,
        on_accent: Color::Reset,
    };

    fn role_mut(&mut self, role: &str) -> Option<&mut Color> {
        Some(match role {
            "accent" => &mut self.accent,
            "text" => &mut self.text,
            "muted" => &mut self.muted,
            "dim" => &mut self.dim,
            "ok" => &mut self.ok,
            "warn" => &mut self.warn,
            "error" => &mut self.error,
            "kind" => &mut self.kind,
            "link" => &mut self.link,
            "on_accent" => &mut self.on_accent,
            _ => return None,
        })
    }

    /// The theme the embedded default and a user's file (`user`, if any) describe; `NO_COLOR`
    /// (`no_color`) wins over both. Returns the problems found in the user's file, worded for
    /// the status line; a bad entry is skipped, the rest still applies.
    pub fn load(user: Option<&str>, no_color: bool) -> (Self, Vec<String>) {
        let mut problems = Vec::new();
        let default = toml::from_str::<toml::Table>(DEFAULT_THEME).unwrap_or_default();
        let user = match user.map(toml::from_str::<toml::Table>) {
            Some(Ok(table)) => table,
            Some(Err(e)) => {
                problems.push(format!("theme.toml: {e}"));
                toml::Table::new()
            }
            None => toml::Table::new(),
        };
        let variant = user
            .get("variant")
            .or_else(|| default.get("variant"))
            .and_then(toml::Value::as_str)
            .unwrap_or("dark")
            .to_owned();
        if variant != "dark" && variant != "light" {
            problems.push(format!(
                "theme.toml: unknown variant `{variant}` (dark or light)"
            ));
        }
        let mut theme = Self::PLAIN;
        for (table, is_user) in [(&default, false), (&user, true)] {
            let Some(roles) = table.get(&variant).and_then(toml::Value::as_table) else {
                continue;
            };
            for (role, value) in roles {
                let colour = value.as_str().and_then(|v| Color::from_str(v).ok());
                match (theme.role_mut(role), colour) {
                    (Some(slot), Some(c)) => *slot = c,
                    _ if is_user => {
                        problems.push(format!(
                            "theme.toml: [{variant}] {role}: not a role and a colour"
                        ));
                    }
                    _ => {}
                }
            }
        }
        if no_color {
            theme = Self::PLAIN;
        }
        (theme, problems)
    }
}

static THEME: OnceLock<Theme> = OnceLock::new();

/// Installs the theme for this process (the first call wins; later calls are ignored).
pub fn install(theme: Theme) {
    let _ = THEME.set(theme);
}

/// The theme in force.
pub fn theme() -> &'static Theme {
    THEME.get_or_init(|| Theme::load(None, false).0)
}

/// The style of text in `color` (a role of [`theme`]).
pub fn fg(color: Color) -> Style {
    Style::new().fg(color)
}

/// One line of `text` in `color`.
pub fn tinted<'a>(text: impl Into<std::borrow::Cow<'a, str>>, color: Color) -> Line<'a> {
    Line::styled(text, fg(color))
}

/// The roles a theme file may set, for documentation and tests.
pub fn roles() -> &'static [&'static str] {
    &ROLES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_dark_and_sets_every_role() {
        let (theme, problems) = Theme::load(None, false);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(theme.accent, Color::Cyan);
        assert_eq!(theme.dim, Color::DarkGray);
        let (mut seen, _) = Theme::load(None, false);
        for role in roles() {
            assert_ne!(seen.role_mut(role).copied(), Some(Color::Reset), "{role}");
        }
    }

    #[test]
    fn a_user_file_picks_the_light_variant_and_overrides_a_role() {
        let user = "variant = \"light\"\n[light]\naccent = \"#123456\"\nbogus = \"red\"\n";
        let (theme, problems) = Theme::load(Some(user), false);
        assert_eq!(theme.accent, Color::Rgb(0x12, 0x34, 0x56));
        assert_eq!(
            theme.text,
            Color::Black,
            "the rest comes from the default light variant"
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("bogus"));
    }

    /// Every view asks the theme for a role: no drawing code outside this file names a colour
    /// (test files may, to check what was drawn).
    #[test]
    fn views_take_their_colours_from_the_theme() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui");
        let mut named = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("src/ui") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name == "theme.rs" || name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            if code.contains("Color::") {
                named.push(name);
            }
        }
        assert!(
            named.is_empty(),
            "colours named outside the theme: {named:?}"
        );
    }

    #[test]
    fn no_color_wins() {
        let (theme, _) = Theme::load(Some("[dark]\naccent = \"red\"\n"), true);
        assert_eq!(theme, Theme::PLAIN);
    }
}
